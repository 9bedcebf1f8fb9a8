import { Entity, ManyToOne, PrimaryKey, Property, type Rel } from '@mikro-orm/core';
import { Module } from './module.entity.js';

@Entity({ tableName: 'permissions' })
export class Permission {
  @PrimaryKey()
  id!: number;

  /** The name the spec uses, such as view-role. */
  @Property({ length: 100, unique: true })
  slug!: string;

  @Property({ length: 255 })
  name!: string;

  @ManyToOne(() => Module, { deleteRule: 'cascade' })
  module!: Rel<Module>;
}
