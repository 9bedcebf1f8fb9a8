import { Collection, Entity, Index, ManyToMany, Property, type Opt } from '@mikro-orm/core';
import { Permission } from './permission.entity.js';
import { CompanyOwned } from './company-owned.js';

@Entity({ tableName: 'roles' })
@Index({ properties: ['company', 'createdAt'] })
@Index({
  name: 'roles_company_id_lower_title_unique',
  expression: 'create unique index "roles_company_id_lower_title_unique" on "roles" ("company_id", lower("title"))',
})
@Index({
  name: 'roles_title_trgm_index',
  expression: 'create index "roles_title_trgm_index" on "roles" using gin ("title" gin_trgm_ops)',
})
export class Role extends CompanyOwned {
  /** Unique within the company, case-insensitively (index in the migration). */
  @Property({ length: 255 })
  title!: string;

  /** The company's Owner role: holds every permission, cannot be changed or deleted. */
  @Property({ default: false })
  isOwner: Opt<boolean> = false;

  @ManyToMany({
    entity: () => Permission,
    pivotTable: 'role_permissions',
    joinColumn: 'role_id',
    inverseJoinColumn: 'permission_id',
  })
  permissions = new Collection<Permission>(this);
}
