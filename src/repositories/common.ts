import { type EntityClass, type FilterQuery, type FindOneOptions, LockMode } from '@mikro-orm/core';
import type { RequestContext } from '../context/request-context.js';
import { idOf } from '../db/lookup.js';
import { AgentTool } from '../entities/agent-tool.entity.js';
import { Agent } from '../entities/agent.entity.js';
import { Call } from '../entities/call.entity.js';
import { Campaign } from '../entities/campaign.entity.js';
import { DecisionEndpoint } from '../entities/decision-endpoint.entity.js';
import { PhoneNumber } from '../entities/phone-number.entity.js';
import { Pipeline } from '../entities/pipeline.entity.js';
import { Role } from '../entities/role.entity.js';
import { SpamProtectedNumber } from '../entities/spam-protected-number.entity.js';
import { Webhook } from '../entities/webhook.entity.js';
import { Workflow } from '../entities/workflow.entity.js';
import type { IdCodec } from '../kernel/ids.js';
import { NotFoundError } from '../kernel/errors.js';

// What every repository does alike: find a company's entity by an id the caller gave (or just whether it has it),
// and make a list's rows `Listed`.

/**
 * An entity of the caller's company by any id form (`kind` names it in the id codec); 404 naming `what` for
 * anything else, another company's included. `lock`: the row is locked until the unit of work ends.
 */
export async function ownedEntity<T extends { id: number; company: unknown }>(
  ctx: RequestContext,
  ids: IdCodec,
  entity: EntityClass<T>,
  of: { kind: string; what: string; lock?: boolean },
  raw: string,
): Promise<T> {
  const id = idOf(ids, raw, of.kind, of.what);
  const where = { id, company: await ctx.companyId() } as FilterQuery<T>;
  const options: FindOneOptions<T> = of.lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {};
  const found = await ctx.em.findOne(entity, where, options);
  if (!found) throw new NotFoundError(of.what);
  return found;
}

/** The entity of each id kind a route's path takes, and the property its id is in (every one company-scoped). */
const OWNED: Record<string, [entity: EntityClass<object>, property: string]> = {
  agent: [Agent, 'id'],
  agent_tool: [AgentTool, 'id'],
  call: [Call, 'id'],
  campaign: [Campaign, 'id'],
  decision_endpoint: [DecisionEndpoint, 'id'],
  phone_number: [PhoneNumber, 'id'],
  pipeline: [Pipeline, 'id'],
  role: [Role, 'id'],
  spam_protected_number: [SpamProtectedNumber, 'id'],
  webhook: [Webhook, 'id'],
  workflow: [Workflow, 'id'],
  workflow_builder: [Workflow, 'builderId'],
};

/**
 * Whether the caller's company has the record of `kind` with this id; undefined for a kind this table does not know.
 * A route that refuses a body asks it first, so a missing or foreign id is 404 whatever the body.
 */
export async function recordOwned(ctx: RequestContext, kind: string, id: number): Promise<boolean | undefined> {
  const owned = OWNED[kind];
  if (!owned) return undefined;
  const [entity, property] = owned;
  return (await ctx.em.count(entity, { [property]: id, company: await ctx.companyId() } as FilterQuery<object>)) > 0;
}

/** A related entity, as a list row carries it: its id alone. */
type IdOnly<V> = V extends { id: number } ? { id: number } : V;

/**
 * A row of a list as the entity names its fields, not an entity: a date is a `Date` (the pool reads it so), a
 * relation its id alone (`{ id }`), nothing is tracked. Lists are read so because hydrating entities cost the roles
 * page a third of its throughput and finding them through the ORM more than half (ADR 0078's A/B).
 */
export type Listed<T, K extends keyof T> = {
  [P in K]: T[P] extends Date | string | number | boolean | null | undefined
    ? T[P]
    : IdOnly<T[P]> | Extract<T[P], null>;
};

type Column = [field: string, name: string, relation: boolean];
/** Each entity's columns as a list reads them: found once, from the first context that lists it. */
const plans = new WeakMap<object, Column[]>();

function columnsOf(ctx: RequestContext, entity: EntityClass<object>): Column[] {
  let columns = plans.get(entity);
  if (!columns) {
    columns = ctx
      .readOnly()
      .em.getMetadata()
      .get(entity.name)
      .props.filter((prop) => prop.fieldNames?.length === 1)
      .map((prop): Column => [prop.fieldNames[0], prop.name, prop.kind === 'm:1' || prop.kind === '1:1']);
    plans.set(entity, columns);
  }
  return columns;
}

/**
 * The rows of a list statement (its columns named as the table names them) as `Listed` rows of `entity`; `also`
 * names what the statement computes beside the entity's columns (aliased as the row calls it), kept as read.
 */
export function listed<T extends object, K extends keyof T, E extends object = object>(
  ctx: RequestContext,
  entity: EntityClass<T>,
  rows: Array<Record<string, unknown>>,
  also: ReadonlyArray<keyof E & string> = [],
): Array<Listed<T, K> & E> {
  const columns = columnsOf(ctx, entity);
  return rows.map((row) => {
    const out: Record<string, unknown> = {};
    for (const name of also) out[name] = row[name];
    for (const [field, name, relation] of columns) {
      const value = row[field];
      if (value === undefined) continue;
      out[name] = relation && value !== null ? { id: value } : value;
    }
    return out as Listed<T, K> & E;
  });
}
