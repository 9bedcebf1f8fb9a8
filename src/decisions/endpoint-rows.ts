import type { RequestContext } from '../context/request-context.js';
import { dbDate } from '../db/reads.js';
import type { DecisionAction } from './answer.js';

// The decision_endpoints aggregate: its row shape and every statement on it.

export interface DecisionEndpointRow {
  id: number;
  companyId: number;
  phoneNumberId: number | null;
  url: string;
  secretSealed: string;
  deadlineMs: number;
  hedge: boolean;
  fallbackAction: DecisionAction;
  fallbackAgentId: number | null;
  fallbackForwardTo: string | null;
  /** OAuth2 client credentials and client TLS, sealed. */
  credentialsSealed: string | null;
  createdAt: Date;
  updatedAt: Date;
}

interface Row {
  id: number;
  company_id: number;
  phone_number_id: number | null;
  url: string;
  secret_sealed: string;
  deadline_ms: number;
  hedge: boolean;
  fallback_action: DecisionAction;
  fallback_agent_id: number | null;
  fallback_forward_to: string | null;
  credentials_sealed: string | null;
  created_at: string;
  updated_at: string;
}

const COLUMNS = `id, company_id, phone_number_id, url, secret_sealed, deadline_ms, hedge, fallback_action,
  fallback_agent_id, fallback_forward_to, credentials_sealed, created_at, updated_at`;

const toEndpoint = (r: Row): DecisionEndpointRow => ({
  id: r.id,
  companyId: r.company_id,
  phoneNumberId: r.phone_number_id,
  url: r.url,
  secretSealed: r.secret_sealed,
  deadlineMs: r.deadline_ms,
  hedge: r.hedge,
  fallbackAction: r.fallback_action,
  fallbackAgentId: r.fallback_agent_id,
  fallbackForwardTo: r.fallback_forward_to,
  credentialsSealed: r.credentials_sealed,
  createdAt: dbDate(r.created_at),
  updatedAt: dbDate(r.updated_at),
});

/** What a create or an update writes. */
export type EndpointFields = Pick<
  DecisionEndpointRow,
  | 'phoneNumberId'
  | 'url'
  | 'deadlineMs'
  | 'hedge'
  | 'fallbackAction'
  | 'fallbackAgentId'
  | 'fallbackForwardTo'
  | 'credentialsSealed'
>;

const values = (f: EndpointFields) => [
  f.phoneNumberId,
  f.url,
  f.deadlineMs,
  f.hedge,
  f.fallbackAction,
  f.fallbackAgentId,
  f.fallbackForwardTo,
  f.credentialsSealed,
];

export const endpointRows = {
  async list(ctx: RequestContext, companyId: number): Promise<DecisionEndpointRow[]> {
    const rows = await ctx.sql<Row>(
      `SELECT ${COLUMNS} FROM decision_endpoints WHERE company_id = $1 ORDER BY phone_number_id NULLS FIRST, id`,
      [companyId],
    );
    return rows.map(toEndpoint);
  },

  async count(ctx: RequestContext, companyId: number): Promise<number> {
    const [row] = await ctx.sql<{ n: number }>(
      'SELECT count(*)::int AS n FROM decision_endpoints WHERE company_id = $1',
      [companyId],
    );
    return row.n;
  },

  async one(
    ctx: RequestContext,
    companyId: number,
    id: number,
    lock = false,
  ): Promise<DecisionEndpointRow | undefined> {
    const [row] = await ctx.sql<Row>(
      `SELECT ${COLUMNS} FROM decision_endpoints WHERE id = $1 AND company_id = $2${lock ? ' FOR UPDATE' : ''}`,
      [id, companyId],
    );
    return row && toEndpoint(row);
  },

  /** The endpoint that decides a call to this number (E.164): the number's own, else the company's. */
  async forCalled(ctx: RequestContext, companyId: number, called: string): Promise<DecisionEndpointRow | undefined> {
    const [row] = await ctx.sql<Row>(
      `SELECT ${COLUMNS} FROM decision_endpoints
       WHERE company_id = $1 AND (phone_number_id IS NULL
         OR phone_number_id = (SELECT id FROM phone_numbers WHERE company_id = $1 AND phone_no = $2))
       ORDER BY phone_number_id NULLS LAST LIMIT 1`,
      [companyId, called],
    );
    return row && toEndpoint(row);
  },

  /** Inserts; undefined when the scope (the company, or the number) already has one. */
  async insert(
    ctx: RequestContext,
    companyId: number,
    fields: EndpointFields,
    secretSealed: string,
    at: Date,
  ): Promise<DecisionEndpointRow | undefined> {
    const [row] = await ctx.sql<Row>(
      `INSERT INTO decision_endpoints (company_id, phone_number_id, url, deadline_ms, hedge, fallback_action,
         fallback_agent_id, fallback_forward_to, credentials_sealed, secret_sealed, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11)
       ON CONFLICT (company_id, coalesce(phone_number_id, 0)) DO NOTHING RETURNING ${COLUMNS}`,
      [companyId, ...values(fields), secretSealed, at],
    );
    return row && toEndpoint(row);
  },

  /** Updates; undefined when another endpoint already has the new scope. */
  async update(
    ctx: RequestContext,
    id: number,
    fields: EndpointFields,
    at: Date,
  ): Promise<DecisionEndpointRow | undefined> {
    const [row] = await ctx.sql<Row>(
      `UPDATE decision_endpoints d SET phone_number_id = $2, url = $3, deadline_ms = $4, hedge = $5, fallback_action = $6,
         fallback_agent_id = $7, fallback_forward_to = $8, credentials_sealed = $9, updated_at = $10
       WHERE d.id = $1 AND NOT EXISTS (SELECT 1 FROM decision_endpoints o
         WHERE o.company_id = d.company_id AND o.id <> d.id AND coalesce(o.phone_number_id, 0) = coalesce($2::int, 0))
       RETURNING ${COLUMNS}`,
      [id, ...values(fields), at],
    );
    return row && toEndpoint(row);
  },

  async remove(ctx: RequestContext, id: number): Promise<void> {
    await ctx.sql('DELETE FROM decision_endpoints WHERE id = $1', [id]);
  },

  /** Which of these ids are the company's phone numbers and agents. */
  async owned(
    ctx: RequestContext,
    companyId: number,
    phoneNumberId: number | null,
    agentId: number | null,
  ): Promise<{ number: boolean; agent: boolean }> {
    const [row] = await ctx.sql<{ number: boolean; agent: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM phone_numbers WHERE id = $2 AND company_id = $1) AS number,
              EXISTS (SELECT 1 FROM agents WHERE id = $3 AND company_id = $1) AS agent`,
      [companyId, phoneNumberId, agentId],
    );
    return row;
  },
};
