import type { RequestContext } from '../context/request-context.js';
import type { IdCodec } from '../kernel/ids.js';
import { Rules } from '../kernel/validation.js';
import { likePattern, pageOf, pageWindow, type Page, type PageArgs } from '../db/reads.js';
import type { Agent } from '../entities/agent.entity.js';
import { agentRepository } from '../repositories/agent.repository.js';
import type { Listed } from '../repositories/common.js';
import { BOUNDS } from '../kernel/bounds.js';

// The agents aggregate: its entity's changes and events, in one place.

/** The data every agent event carries (docs: src/events/catalog.ts). */
const agentData = (agent: Listed<Agent, 'id' | 'name' | 'active' | 'online'>) => ({
  agent_id: String(agent.id),
  name: agent.name,
  active: agent.active,
  online: agent.online,
});

/** An agent as the GraphQL Agent type serves it (its encryptedId sealed by the resolver, when asked for). */
export interface AgentRecord {
  id: string;
  name: string;
  active: boolean;
  online: boolean;
}

export class AgentService {
  constructor(private readonly ids: IdCodec) {}

  private record(agent: Listed<Agent, 'id' | 'name' | 'active' | 'online'>): AgentRecord {
    return {
      id: String(agent.id),
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
    const [agents, total] = await agentRepository.page(
      ctx,
      { active: args.active ?? undefined, namePattern: args.search ? likePattern(args.search) : undefined },
      window,
    );
    return pageOf(
      agents.map((agent) => this.record(agent)),
      total,
      window,
    );
  }

  async create(ctx: RequestContext, name: string): Promise<AgentRecord> {
    new Rules().required('name', name).maxChars('name', name, BOUNDS.agent.name.maxLength).check();
    const agent = await agentRepository.create(ctx, name.trim());
    await ctx.events.record('agent.created', agentData(agent));
    return this.record(agent);
  }

  async update(
    ctx: RequestContext,
    rawId: string,
    change: { name?: string | null; active?: boolean | null },
  ): Promise<AgentRecord> {
    const agent = await agentRepository.locked(ctx, this.ids, rawId);
    if (change.name !== undefined && change.name !== null)
      new Rules().required('name', change.name).maxChars('name', change.name, BOUNDS.agent.name.maxLength).check();
    const before = { name: agent.name, active: agent.active, online: agent.online };
    if (change.name) agent.name = change.name.trim();
    if (change.active !== undefined && change.active !== null) {
      agent.active = change.active;
      if (!change.active) agent.online = false;
    }
    const changes = (['name', 'active'] as const).filter((field) => before[field] !== agent[field]);
    if (changes.length === 0 && before.online === agent.online) return this.record(agent);
    await agentRepository.save(ctx);
    if (changes.length > 0) await ctx.events.record('agent.updated', { ...agentData(agent), changes });
    if (before.online !== agent.online) await this.statusChanged(ctx, agent, before.online);
    return this.record(agent);
  }

  async setOnline(ctx: RequestContext, rawId: string, online: boolean): Promise<AgentRecord> {
    const agent = await agentRepository.locked(ctx, this.ids, rawId);
    if (online && !agent.active) new Rules().add('online', 'An inactive agent cannot go online.').check();
    const was = agent.online;
    if (was === online) return this.record(agent);
    agent.online = online;
    await agentRepository.save(ctx);
    await this.statusChanged(ctx, agent, was);
    return this.record(agent);
  }

  private statusChanged(
    ctx: RequestContext,
    agent: Listed<Agent, 'id' | 'name' | 'active' | 'online'>,
    wasOnline: boolean,
  ): Promise<void> {
    return ctx.events.record('agent.status_changed', {
      ...agentData(agent),
      status: agent.online ? 'online' : 'offline',
      previous_status: wasOnline ? 'online' : 'offline',
    });
  }
}
