import type { RequestContext } from '../context/request-context.js';
import { Agent } from '../entities/agent.entity.js';
import { DecisionEndpoint } from '../entities/decision-endpoint.entity.js';
import { PhoneNumber } from '../entities/phone-number.entity.js';
import type { IdCodec } from '../kernel/ids.js';
import { ownedEntity } from './common.js';

// A company's decision endpoints (docs/adr/0068-decisions-in-the-call-path.md): the one module that knows their
// table. One per scope (the company's own, or a phone number's): a second in a scope is refused, not an error.

/** What a create or an update writes: the scope and fallback by id. */
export interface EndpointFields {
  phoneNumberId: number | null;
  url: string;
  deadlineMs: number;
  hedge: boolean;
  fallbackAction: string;
  fallbackAgentId: number | null;
  fallbackForwardTo: string | null;
  credentialsSealed: string | null;
}

const scopeOf = (phoneNumberId: number | null) => ({ phoneNumber: phoneNumberId });

export const decisionEndpointRepository = {
  /** The company's endpoints: its own first, then the numbers', in the order they were made. */
  async list(ctx: RequestContext): Promise<DecisionEndpoint[]> {
    return ctx.em.find(
      DecisionEndpoint,
      { company: await ctx.companyId() },
      { orderBy: { phoneNumber: 'asc nulls first', id: 'asc' } },
    );
  },

  async count(ctx: RequestContext): Promise<number> {
    return ctx.em.count(DecisionEndpoint, { company: await ctx.companyId() });
  },

  /** The company's endpoint by any id form; `lock`: locked until the unit of work ends. 404 otherwise. */
  owned(ctx: RequestContext, ids: IdCodec, raw: string, lock = false): Promise<DecisionEndpoint> {
    return ownedEntity(ctx, ids, DecisionEndpoint, { kind: 'decision_endpoint', what: 'Decision endpoint', lock }, raw);
  },

  /** The company's endpoint by its number id, or null. */
  async ofCompany(ctx: RequestContext, id: number): Promise<DecisionEndpoint | null> {
    return ctx.em.findOne(DecisionEndpoint, { id, company: await ctx.companyId() });
  },

  /** The endpoint that decides a call to this number (E.164): the number's own, else the company's; null without one. */
  async forCalled(ctx: RequestContext, companyId: number, called: string): Promise<DecisionEndpoint | null> {
    return ctx.em.findOne(
      DecisionEndpoint,
      { company: companyId, $or: [{ phoneNumber: null }, { phoneNumber: { phoneNo: called, company: companyId } }] },
      { orderBy: { phoneNumber: 'asc nulls last' } },
    );
  },

  /** Makes an endpoint; null when its scope (the company, or the number) has one already. */
  async create(ctx: RequestContext, fields: EndpointFields, secretSealed: string): Promise<DecisionEndpoint | null> {
    const now = new Date();
    const { phoneNumberId, fallbackAgentId, ...rest } = fields;
    const result = await ctx.em
      .createQueryBuilder(DecisionEndpoint)
      .insert({
        ...rest,
        company: await ctx.companyId(),
        phoneNumber: phoneNumberId,
        fallbackAgent: fallbackAgentId,
        secretSealed,
        createdAt: now,
        updatedAt: now,
      })
      // The scope's unique index is an expression: any conflict is that one.
      .onConflict()
      .ignore()
      .execute('run');
    return result.affectedRows === 0 ? null : ctx.em.findOneOrFail(DecisionEndpoint, result.insertId as number);
  },

  /** Changes an endpoint (locked by the caller); false when another endpoint of the company has the new scope. */
  async update(ctx: RequestContext, endpoint: DecisionEndpoint, fields: EndpointFields): Promise<boolean> {
    const { phoneNumberId, fallbackAgentId, ...rest } = fields;
    const taken = await ctx.em.count(DecisionEndpoint, {
      company: endpoint.company,
      id: { $ne: endpoint.id },
      ...scopeOf(phoneNumberId),
    });
    if (taken > 0) return false;
    Object.assign(endpoint, rest, {
      phoneNumber: phoneNumberId === null ? null : ctx.em.getReference(PhoneNumber, phoneNumberId),
      fallbackAgent: fallbackAgentId === null ? null : ctx.em.getReference(Agent, fallbackAgentId),
    });
    await ctx.em.flush();
    return true;
  },

  async remove(ctx: RequestContext, endpoint: DecisionEndpoint): Promise<void> {
    await ctx.em.remove(endpoint).flush();
  },

  /** Whether the company has the phone number and the agent of these ids (null: not asked). */
  async owns(
    ctx: RequestContext,
    phoneNumberId: number | null,
    agentId: number | null,
  ): Promise<{ number: boolean; agent: boolean }> {
    const company = await ctx.companyId();
    const numbers = phoneNumberId === null ? 0 : await ctx.em.count(PhoneNumber, { id: phoneNumberId, company });
    const agents = agentId === null ? 0 : await ctx.em.count(Agent, { id: agentId, company });
    return { number: numbers > 0, agent: agents > 0 };
  },
};
