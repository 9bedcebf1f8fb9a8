import { Entity, Index, ManyToOne, PrimaryKey, Property, type Rel } from '@mikro-orm/core';
import { Company } from './company.entity.js';
import { Role } from './role.entity.js';
import { Timestamped } from './timestamps.js';

@Entity({ tableName: 'users' })
export class User extends Timestamped {
  @PrimaryKey()
  id!: number;

  @ManyToOne(() => Company, { deleteRule: 'cascade' })
  company!: Rel<Company>;

  @ManyToOne(() => Role, { deleteRule: 'restrict' })
  @Index()
  role!: Rel<Role>;

  @Property({ length: 255 })
  name!: string;

  /** Stored lower-case; sign-in matches it case-insensitively. */
  @Property({ length: 255, unique: true })
  email!: string;

  /** argon2id */
  @Property({ length: 255, hidden: true })
  passwordHash!: string;
}
