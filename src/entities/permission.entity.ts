import { Entity, ManyToOne, PrimaryKey, Property, type Rel } from '@mikro-orm/core';
import { PermissionModule } from './permission-module.entity.js';

// A permission a role may hold. Its statement trigger (permissions_viewer_changed) is in
// Migration20261123100000_viewer_changes.

@Entity({ tableName: 'permissions' })
export class Permission {
  @PrimaryKey({ type: 'integer', autoincrement: true })
  id!: number;

  @Property({ type: 'string', length: 100, unique: 'permissions_slug_unique' })
  slug!: string;

  @Property({ type: 'string', length: 255 })
  name!: string;

  @ManyToOne(() => PermissionModule, {
    fieldName: 'module_id',
    deleteRule: 'cascade',
    updateRule: 'cascade',
    index: false,
  })
  module!: Rel<PermissionModule>;
}
