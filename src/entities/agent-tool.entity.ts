import { CompanyOwned } from './company-owned.entity.js';
import { Entity, Index, ManyToOne, Property, type Rel, Unique } from '@mikro-orm/core';
import { Agent } from './agent.entity.js';

/** A tool an agent may call during a call: the company's endpoint, its JSON Schema parameters and its deadline. */
@Entity({ tableName: 'agent_tools' })
@Unique({ name: 'agent_tools_agent_name_unique', properties: ['agent', 'name'] })
@Index({ name: 'agent_tools_company_id_index', properties: ['company'] })
export class AgentTool extends CompanyOwned {
  @ManyToOne(() => Agent, { deleteRule: 'cascade', updateRule: 'cascade', index: false })
  agent!: Rel<Agent>;

  @Property({ type: 'string', length: 64 })
  name!: string;

  @Property({ type: 'text' })
  description!: string;

  /** The JSON Schema of the tool's arguments. */
  @Property({ type: 'json' })
  parameters!: Record<string, unknown>;

  @Property({ type: 'text' })
  url!: string;

  @Property({ type: 'text', hidden: true })
  secretSealed!: string;

  @Property({ type: 'integer', default: 3000 })
  deadlineMs = 3000;

  @Property({ type: 'text' })
  fallbackMessage!: string;

  /** Credentials the request carries (OAuth2 client credentials and client TLS: webhooks/config/credentials.ts), sealed. */
  @Property({ type: 'text', nullable: true, hidden: true })
  credentialsSealed?: string | null;
}
