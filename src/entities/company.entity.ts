import { Timestamped } from './timestamped.entity.js';
import { Entity, ManyToOne, type Opt, Property, type Rel } from '@mikro-orm/core';
import type { ANALYSIS_FIELD_TYPES } from '../kernel/vocabulary.js';

// A company, and the agency it belongs to. The trigger that tells the viewer
// cache of a change (companies_viewer_changed: db/listener.ts) is written in
// Migration20261123100000_viewer_changes: MikroORM does not express triggers.

/** A post-call analysis field the company declares (Retell's post_call_analysis_data). */
export interface AnalysisField {
  name: string;
  type: (typeof ANALYSIS_FIELD_TYPES)[number];
  description: string | null;
  choices: string[] | null;
}

/** What a company has set, a key per setting (read and written one key at a time: repositories/company.repository.ts). */
export interface CompanySettings {
  agentPerformance?: { answerRate?: number; averageSentiment?: number };
  callAnalysisFields?: AnalysisField[];
  /** kernel/vocabulary.ts LOCAL_PRESENCE. */
  numberAiLocalPresence?: string;
  minCarriersToFlag?: number;
}

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
  isAgency: Opt<boolean> = false;

  @Property({ type: 'string', length: 64, default: 'UTC' })
  timeZone: Opt<string> = 'UTC';

  @Property({ type: 'json', default: '{}' })
  settings: Opt<CompanySettings> = {};

  @Property({ type: 'integer', nullable: true })
  apiLimitPerToken?: number | null;

  @Property({ type: 'integer', nullable: true })
  apiLimitPerCompany?: number | null;
}
