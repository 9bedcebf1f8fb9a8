import { Entity, Index, ManyToOne, PrimaryKey, Property, type Opt, type Rel } from '@mikro-orm/core';
import { Timestamped } from './timestamps.js';

/** Settings the spec names per company; stored as one JSON document. */
export interface CompanySettings {
  minCarriersToFlag?: 1 | 2 | 3;
  numberAiLocalPresence?: 'All' | 'Unassigned';
  /** agent.performance thresholds (defaults in src/services/agent-performance.ts). */
  agentPerformance?: { answerRate?: number; averageSentiment?: number };
  /** The company's post-call analysis fields (src/services/call-analysis.service.ts); none declared: any field of the free form. */
  callAnalysisFields?: Array<{
    name: string;
    type: 'string' | 'number' | 'boolean' | 'choice';
    description: string | null;
    choices: string[] | null;
  }>;
}

@Entity({ tableName: 'companies' })
export class Company extends Timestamped {
  @PrimaryKey()
  id!: number;

  @Property({ length: 255 })
  name!: string;

  /** The agency this company belongs to, when it is a child company. */
  @ManyToOne(() => Company, { nullable: true, deleteRule: 'restrict' })
  @Index()
  parent?: Rel<Company>;

  @Property({ default: false })
  isAgency: Opt<boolean> = false;

  /** IANA time zone; the dashboard's date ranges are computed in it. */
  @Property({ length: 64, default: 'UTC' })
  timeZone: Opt<string> = 'UTC';

  @Property({ type: 'json', default: '{}' })
  settings: Opt<CompanySettings> = {};
}
