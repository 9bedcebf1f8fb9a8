import { Timestamped } from './timestamped.entity.js';
import { Entity, ManyToOne, Property, type Rel } from '@mikro-orm/core';

// A company, and the agency it belongs to. The trigger that tells the viewer
// cache of a change (companies_viewer_changed: db/listener.ts) is written in
// Migration20261123100000_viewer_changes: MikroORM does not express triggers.

@Entity({ tableName: 'companies' })
export class Company extends Timestamped {
  @Property({ type: 'string', length: 255 })
  name!: string;

  @ManyToOne(() => Company, {
    nullable: true,
    deleteRule: 'restrict',
    updateRule: 'cascade',
    index: 'companies_parent_id_index',
  })
  parent?: Rel<Company> | null;

  @Property({ type: 'boolean', default: false })
  isAgency = false;

  @Property({ type: 'string', length: 64, default: 'UTC' })
  timeZone = 'UTC';

  @Property({ type: 'json', default: '{}' })
  settings: Record<string, unknown> = {};

  @Property({ type: 'integer', nullable: true })
  apiLimitPerToken?: number | null;

  @Property({ type: 'integer', nullable: true })
  apiLimitPerCompany?: number | null;
}
