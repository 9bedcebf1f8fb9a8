import type { RequestContext } from '../context/request-context.js';
import type { IdCodec } from '../kernel/ids.js';
import { Agent } from '../entities/index.js';
import { Rules } from '../kernel/validation.js';
import { findOwned, findPage } from '../db/lookup.js';
import { likePattern, pageWindow, type Page, type PageArgs } from '../db/reads.js';
import { BOUNDS } from '../kernel/bounds.js';

/** The data every agent event carries (docs: src/events/catalog.ts). */
const agentData = (agent: Agent) => ({
  agent_id: String(agent.id),
  name: agent.name,
  active: agent.active,
  online: agent.online,
});

/** An agent as the GraphQL Agent type serves it. */
export interface AgentRecord {
  id: string;
  encryptedId: string;
  name: string;
  active: boolean;
  online: boolean;
}

export class AgentService {
  constructor(private readonly ids: IdCodec) {}

  private record(agent: Agent): AgentRecord {
    return {
      id: String(agent.id),
      encryptedId: this.ids.encrypt('agent', agent.id),
      name: agent.name,
      active: agent.active,
      online: agent.online,
    };
  }

  async list(
    ctx: RequestContext,
    args: PageArgs & { search?: string | null; active?: boolean | null },
  ): Promise<Page<AgentRecord>> {
    const window = pageWindow(args);
    const where: Record<string, unknown> = { company: await ctx.companyId() };
    if (args.active !== undefined && args.active !== null) where.active = args.active;
    if (args.search) where.name = { $ilike: likePattern(args.search) };
    const page = await findPage(ctx.em, Agent, where, window, { orderBy: { name: 'asc', id: 'asc' } });
    return { ...page, records: page.records.map((agent) => this.record(agent)) };
  }

  async create(ctx: RequestContext, name: string): Promise<AgentRecord> {
    new Rules().required('name', name).maxChars('name', name, BOUNDS.agent.name.maxLength).check();
    const agent = ctx.em.create(Agent, { company: await ctx.companyId(), name: name.trim() });
    await ctx.em.flush();
    await ctx.events.record('agent.created', agentData(agent));
    return this.record(agent);
  }

  async update(
    ctx: RequestContext,
    rawId: string,
    change: { name?: string | null; active?: boolean | null },
  ): Promise<AgentRecord> {
    const agent = await findOwned(ctx, this.ids, Agent, rawId, 'agent', 'Agent');
    if (change.name !== undefined && change.name !== null)
      new Rules().required('name', change.name).maxChars('name', change.name, BOUNDS.agent.name.maxLength).check();
    const before = { name: agent.name, active: agent.active, online: agent.online };
    if (change.name) agent.name = change.name.trim();
    if (change.active !== undefined && change.active !== null) {
      agent.active = change.active;
      if (!change.active) agent.online = false;
    }
    await ctx.em.flush();
    const changes = (['name', 'active'] as const).filter((field) => before[field] !== agent[field]);
    if (changes.length > 0) await ctx.events.record('agent.updated', { ...agentData(agent), changes });
    if (before.online !== agent.online) await this.statusChanged(ctx, agent, before.online);
    return this.record(agent);
  }

  async setOnline(ctx: RequestContext, rawId: string, online: boolean): Promise<AgentRecord> {
    const agent = await findOwned(ctx, this.ids, Agent, rawId, 'agent', 'Agent');
    if (online && !agent.active) new Rules().add('online', 'An inactive agent cannot go online.').check();
    const was = agent.online;
    agent.online = online;
    await ctx.em.flush();
    if (was !== online) await this.statusChanged(ctx, agent, was);
    return this.record(agent);
  }

  private statusChanged(ctx: RequestContext, agent: Agent, wasOnline: boolean): Promise<void> {
    return ctx.events.record('agent.status_changed', {
      ...agentData(agent),
      status: agent.online ? 'online' : 'offline',
      previous_status: wasOnline ? 'online' : 'offline',
    });
  }
}
