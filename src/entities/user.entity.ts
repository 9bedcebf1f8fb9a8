import { Entity, ManyToOne, PrimaryKey, Property, type Rel } from '@mikro-orm/core';
import { Company } from './company.entity.js';
import { Role } from './role.entity.js';

// A person who signs in, in one company with one role. The trigger users_viewer_changed is in
// Migration20261123100000_viewer_changes.

@Entity({ tableName: 'users' })
export class User {
  @PrimaryKey({ type: 'integer', autoincrement: true })
  id!: number;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt!: Date;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  updatedAt!: Date;

  @ManyToOne(() => Company, { deleteRule: 'cascade', updateRule: 'cascade', index: false })
  company!: Rel<Company>;

  @ManyToOne(() => Role, { deleteRule: 'restrict', updateRule: 'cascade', index: 'users_role_id_index' })
  role!: Rel<Role>;

  @Property({ type: 'string', length: 255 })
  name!: string;

  @Property({ type: 'string', length: 255, unique: 'users_email_unique' })
  email!: string;

  @Property({ type: 'string', length: 255, hidden: true })
  passwordHash!: string;
}
