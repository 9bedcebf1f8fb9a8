import { Entity, PrimaryKey, Property } from '@mikro-orm/core';

/** A group of permissions, as the roles page lists them (table `modules`). */
@Entity({ tableName: 'modules' })
export class PermissionModule {
  @PrimaryKey({ type: 'integer', autoincrement: true })
  id!: number;

  @Property({ type: 'string', length: 64, unique: 'modules_slug_unique' })
  slug!: string;

  @Property({ type: 'string', length: 255 })
  name!: string;

  @Property({ type: 'integer', default: 0 })
  sortOrder = 0;
}
