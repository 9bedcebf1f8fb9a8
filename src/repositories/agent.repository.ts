import { type FilterQuery, LockMode } from '@mikro-orm/core';
import type { RequestContext } from '../context/request-context.js';
import type { PageWindow } from '../db/reads.js';
import { Agent } from '../entities/agent.entity.js';
import type { IdCodec } from '../kernel/ids.js';
import { ownedEntity, pageOptions } from './common.js';

// A company's AI agents, through the entity: the one module that knows their table.

export const agentRepository = {
  /** One page of the company's agents by name, filtered by activity and by a LIKE pattern of the name. */
  async page(
    ctx: RequestContext,
    filter: { active?: boolean; namePattern?: string },
    window: PageWindow,
  ): Promise<[Agent[], number]> {
    const where: FilterQuery<Agent> = { company: await ctx.companyId() };
    if (filter.active !== undefined) where.active = filter.active;
    if (filter.namePattern) where.name = { $ilike: filter.namePattern };
    return ctx.em.findAndCount(Agent, where, { orderBy: [{ name: 'asc' }, { id: 'asc' }], ...pageOptions(window) });
  },

  /** The company's agent by any id form, locked until the unit of work ends (one change at a time); 404 otherwise. */
  locked(ctx: RequestContext, ids: IdCodec, raw: string): Promise<Agent> {
    return ownedEntity(ctx, ids, Agent, { kind: 'agent', what: 'Agent', lock: true }, raw);
  },

  /** The agent of `companyId` by its id, locked until the unit of work ends; null when it is gone. */
  async lockedById(ctx: RequestContext, companyId: number, id: number): Promise<Agent | null> {
    return ctx.em.findOne(Agent, { id, company: companyId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  },

  async create(ctx: RequestContext, name: string): Promise<Agent> {
    const agent = ctx.em.create(Agent, { company: await ctx.companyId(), name });
    await ctx.em.flush();
    return agent;
  },

  /** Writes what was changed on the agents this unit of work holds. */
  save(ctx: RequestContext): Promise<void> {
    return ctx.em.flush();
  },
};
