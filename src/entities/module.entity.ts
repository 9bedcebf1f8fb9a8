import { Collection, Entity, OneToMany, PrimaryKey, Property, type Opt } from '@mikro-orm/core';
import { Permission } from './permission.entity.js';

/** A group of permissions (one area of the product). The catalog is created by migration. */
@Entity({ tableName: 'modules' })
export class Module {
  @PrimaryKey()
  id!: number;

  @Property({ length: 64, unique: true })
  slug!: string;

  @Property({ length: 255 })
  name!: string;

  @Property({ default: 0 })
  sortOrder: Opt<number> = 0;

  @OneToMany(
    () => Permission,
    (permission) => permission.module,
  )
  permissions = new Collection<Permission>(this);
}
