import { CompanyOwned } from './company-owned.entity.js';
import { Collection, Entity, Index, ManyToMany, type Opt, Property } from '@mikro-orm/core';
import { Permission } from './permission.entity.js';

// A company's role and the permissions it grants. Written by hand in the
// migrations, named here: the unique title per company ignoring case
// (an expression index) and the trigram index the list's search uses, and
// the trigger roles_viewer_changed.

@Entity({ tableName: 'roles' })
@Index({ name: 'roles_company_id_created_at_index', properties: ['company', 'createdAt'] })
@Index({
  name: 'roles_company_id_lower_title_unique',
  expression: 'create unique index "roles_company_id_lower_title_unique" on "roles" ("company_id", lower("title"))',
})
@Index({
  name: 'roles_title_trgm_index',
  expression: 'create index "roles_title_trgm_index" on "roles" using gin ("title" gin_trgm_ops)',
})
export class Role extends CompanyOwned {
  @Property({ type: 'string', length: 255 })
  title!: string;

  @Property({ type: 'boolean', default: false })
  isOwner: Opt<boolean> = false;

  @ManyToMany(() => Permission, undefined, {
    pivotTable: 'role_permissions',
    joinColumn: 'role_id',
    inverseJoinColumn: 'permission_id',
  })
  permissions = new Collection<Permission>(this);
}
