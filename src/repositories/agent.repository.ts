import { LockMode } from '@mikro-orm/core';
import type { RequestContext } from '../context/request-context.js';
import { CALL_PATH_CHANNEL } from '../db/config-cache.js';
import { type PageWindow, readPage } from '../db/reads.js';
import { Agent } from '../entities/agent.entity.js';
import type { IdCodec } from '../kernel/ids.js';
import { type Listed, listed, ownedEntity } from './common.js';

// A company's AI agents: the one module that knows their table. Its list is one statement (a page of rows).

export const agentRepository = {
  /** One page of the company's agents by name, filtered by activity, one id and a LIKE pattern of the name. */
  async page(
    ctx: RequestContext,
    filter: { active?: boolean; id?: number; namePattern?: string },
    window: PageWindow,
  ): Promise<[Array<Listed<Agent, 'id' | 'name' | 'active' | 'online'>>, number]> {
    const params: unknown[] = [await ctx.companyId()];
    let where = 'company_id = $1';
    if (filter.active !== undefined) where += ` AND active = $${params.push(filter.active)}`;
    if (filter.id !== undefined) where += ` AND id = $${params.push(filter.id)}`;
    if (filter.namePattern) where += ` AND name ILIKE $${params.push(filter.namePattern)}`;
    const { rows, total } = await readPage<Record<string, unknown>>(
      ctx,
      { select: 'id, name, active, online', from: 'agents', where, orderBy: 'name ASC, id ASC', params },
      window,
    );
    return [listed(ctx, Agent, rows), total];
  },

  /** The company's agent by any id form, locked until the unit of work ends (one change at a time); 404 otherwise. */
  locked(ctx: RequestContext, ids: IdCodec, raw: string): Promise<Agent> {
    return ownedEntity(ctx, ids, Agent, { kind: 'agent', what: 'Agent', lock: true }, raw);
  },

  /** Whether `companyId` (the caller's, or one of an agency's companies) has the agent `id`. */
  async belongsTo(ctx: RequestContext, id: number, companyId: number): Promise<boolean> {
    return (await ctx.em.count(Agent, { id, company: companyId })) > 0;
  },

  /** The caller's company's agent by its id, or null. */
  async byId(ctx: RequestContext, id: number): Promise<Agent | null> {
    return ctx.em.findOne(Agent, { id, company: await ctx.companyId() });
  },

  /** The agent of `companyId` by its id, locked until the unit of work ends; null when it is gone. */
  async lockedById(ctx: RequestContext, companyId: number, id: number): Promise<Agent | null> {
    return ctx.em.findOne(Agent, { id, company: companyId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  },

  /**
   * Makes an agent: one statement, written by hand, on the path the API's writes are measured on (its A/B against
   * the entity's create and flush: `agents orm/plain` in bench/results/api.md).
   */
  async create(ctx: RequestContext, name: string): Promise<Listed<Agent, 'id' | 'name' | 'active' | 'online'>> {
    const companyId = await ctx.companyId();
    const rows = await ctx.sql<Record<string, unknown>>(
      `INSERT INTO agents (company_id, name, active, online, performance_state, created_at, updated_at)
       VALUES ($1, $2, true, false, '{}', now(), now()) RETURNING id, name, active, online`,
      [companyId, name],
    );
    // The company's agents as the call path keeps them (an answer may name the new one): announced once committed,
    // out of the answer's way (docs/adr/0098).
    ctx.notifyAfterCommit(CALL_PATH_CHANNEL, String(companyId));
    return listed<Agent, 'id' | 'name' | 'active' | 'online'>(ctx, Agent, rows)[0];
  },

  /** Writes what was changed on the agents this unit of work holds. */
  save(ctx: RequestContext): Promise<void> {
    return ctx.em.flush();
  },
};
