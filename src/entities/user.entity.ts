import { Entity, Index, ManyToOne, Property, type Rel } from '@mikro-orm/core';
import { Role } from './role.entity.js';
import { CompanyOwned } from './company-owned.js';

@Entity({ tableName: 'users' })
export class User extends CompanyOwned {
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
