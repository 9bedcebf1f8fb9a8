import { CompanyOwned } from './company-owned.entity.js';
import { Entity, ManyToOne, Property, type Rel } from '@mikro-orm/core';
import { Role } from './role.entity.js';

// A person who signs in, in one company with one role. The trigger users_viewer_changed is in
// Migration20261123100000_viewer_changes.

@Entity({ tableName: 'users' })
export class User extends CompanyOwned {
  @ManyToOne(() => Role, { deleteRule: 'restrict', updateRule: 'cascade', index: 'users_role_id_index' })
  role!: Rel<Role>;

  @Property({ type: 'string', length: 255 })
  name!: string;

  @Property({ type: 'string', length: 255, unique: 'users_email_unique' })
  email!: string;

  @Property({ type: 'string', length: 255, hidden: true })
  passwordHash!: string;
}
