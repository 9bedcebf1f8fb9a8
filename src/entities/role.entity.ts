import { Collection, Entity, Index, ManyToMany, ManyToOne, PrimaryKey, Property, type Opt, type Rel } from '@mikro-orm/core';
import { Company } from './company.entity.js';
import { Permission } from './permission.entity.js';
import { Timestamped } from './timestamps.js';

@Entity({ tableName: 'roles' })
@Index({ properties: ['company', 'createdAt'] })
export class Role extends Timestamped {
  @PrimaryKey()
  id!: number;

  @ManyToOne(() => Company, { deleteRule: 'cascade' })
  company!: Rel<Company>;

  /** Unique within the company, case-insensitively (index in the migration). */
  @Property({ length: 255 })
  title!: string;

  /** The company's Owner role: holds every permission, cannot be changed or deleted. */
  @Property({ default: false })
  isOwner: Opt<boolean> = false;

  @ManyToMany({ entity: () => Permission, pivotTable: 'role_permissions', joinColumn: 'role_id', inverseJoinColumn: 'permission_id' })
  permissions = new Collection<Permission>(this);
}
