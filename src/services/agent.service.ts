import type { RequestContext } from '../context/request-context.js';
import type { IdCodec } from '../kernel/ids.js';
import { Rules } from '../kernel/validation.js';
import { ownedRow } from '../db/lookup.js';
import { likePattern, pageOf, pageWindow, readPage, type Page, type PageArgs } from '../db/reads.js';
import { BOUNDS } from '../kernel/bounds.js';

// The agents aggregate: its rows, statements and events, in one place.

/** An agent's row. */
interface AgentRow {
  id: number;
  name: string;
  active: boolean;
  online: boolean;
}

const AGENT_COLUMNS = 'id, name, active, online';
const AGENT_ROW = { table: 'agents', columns: AGENT_COLUMNS, kind: 'agent', what: 'Agent' };

/** The data every agent event carries (docs: src/events/catalog.ts). */
const agentData = (agent: AgentRow) => ({
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

  private record(agent: AgentRow): AgentRecord {
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
    const params: unknown[] = [await ctx.companyId()];
    let where = 'company_id = $1';
    if (args.active !== undefined && args.active !== null) where += ` AND active = $${params.push(args.active)}`;
    if (args.search) where += ` AND name ILIKE $${params.push(likePattern(args.search))}`;
    const { rows, total } = await readPage<AgentRow>(
      ctx,
      { select: AGENT_COLUMNS, from: 'agents', where, orderBy: 'name ASC, id ASC', params },
      window,
    );
    return pageOf(
      rows.map((row) => this.record(row)),
      total,
      window,
    );
  }

  async create(ctx: RequestContext, name: string): Promise<AgentRecord> {
    new Rules().required('name', name).maxChars('name', name, BOUNDS.agent.name.maxLength).check();
    const [agent] = await ctx.sql<AgentRow>(
      `INSERT INTO agents (company_id, name, active, online, performance_state, created_at, updated_at)
       VALUES ($1, $2, true, false, '{}', now(), now()) RETURNING ${AGENT_COLUMNS}`,
      [await ctx.companyId(), name.trim()],
    );
    await ctx.events.record('agent.created', agentData(agent));
    return this.record(agent);
  }

  async update(
    ctx: RequestContext,
    rawId: string,
    change: { name?: string | null; active?: boolean | null },
  ): Promise<AgentRecord> {
    const before = await this.owned(ctx, rawId);
    if (change.name !== undefined && change.name !== null)
      new Rules().required('name', change.name).maxChars('name', change.name, BOUNDS.agent.name.maxLength).check();
    const agent = { ...before };
    if (change.name) agent.name = change.name.trim();
    if (change.active !== undefined && change.active !== null) {
      agent.active = change.active;
      if (!change.active) agent.online = false;
    }
    const changes = (['name', 'active'] as const).filter((field) => before[field] !== agent[field]);
    if (changes.length === 0 && before.online === agent.online) return this.record(agent);
    await this.save(ctx, agent);
    if (changes.length > 0) await ctx.events.record('agent.updated', { ...agentData(agent), changes });
    if (before.online !== agent.online) await this.statusChanged(ctx, agent, before.online);
    return this.record(agent);
  }

  async setOnline(ctx: RequestContext, rawId: string, online: boolean): Promise<AgentRecord> {
    const agent = await this.owned(ctx, rawId);
    if (online && !agent.active) new Rules().add('online', 'An inactive agent cannot go online.').check();
    const was = agent.online;
    if (was === online) return this.record(agent);
    agent.online = online;
    await this.save(ctx, agent);
    await this.statusChanged(ctx, agent, was);
    return this.record(agent);
  }

  /** The company's agent by any id form, locked until the unit of work ends: one change at a time per agent. */
  private owned(ctx: RequestContext, rawId: string): Promise<AgentRow> {
    return ownedRow<AgentRow>(ctx, this.ids, { ...AGENT_ROW, lock: true }, rawId);
  }

  private async save(ctx: RequestContext, agent: AgentRow): Promise<void> {
    await ctx.sql('UPDATE agents SET name = $1, active = $2, online = $3, updated_at = now() WHERE id = $4', [
      agent.name,
      agent.active,
      agent.online,
      agent.id,
    ]);
  }

  private statusChanged(ctx: RequestContext, agent: AgentRow, wasOnline: boolean): Promise<void> {
    return ctx.events.record('agent.status_changed', {
      ...agentData(agent),
      status: agent.online ? 'online' : 'offline',
      previous_status: wasOnline ? 'online' : 'offline',
    });
  }
}
