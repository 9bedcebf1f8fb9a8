import type { RequestContext } from '../context/request-context.js';
import { dbDate } from '../db/reads.js';

// The agent_tools aggregate: its row shape and every statement on it.

export interface AgentToolRow {
  id: number;
  companyId: number;
  agentId: number;
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  url: string;
  secretSealed: string;
  deadlineMs: number;
  fallbackMessage: string;
  /** OAuth2 client credentials and client TLS, sealed. */
  credentialsSealed: string | null;
  createdAt: Date;
  updatedAt: Date;
}

interface Row {
  id: number;
  company_id: number;
  agent_id: number;
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  url: string;
  secret_sealed: string;
  deadline_ms: number;
  fallback_message: string;
  credentials_sealed: string | null;
  created_at: string;
  updated_at: string;
}

const COLUMNS =
  'id, company_id, agent_id, name, description, parameters, url, secret_sealed, deadline_ms, fallback_message, credentials_sealed, ' +
  'created_at, updated_at';

const toTool = (r: Row): AgentToolRow => ({
  id: r.id,
  companyId: r.company_id,
  agentId: r.agent_id,
  name: r.name,
  description: r.description,
  parameters: r.parameters,
  url: r.url,
  secretSealed: r.secret_sealed,
  deadlineMs: r.deadline_ms,
  fallbackMessage: r.fallback_message,
  credentialsSealed: r.credentials_sealed,
  createdAt: dbDate(r.created_at),
  updatedAt: dbDate(r.updated_at),
});

export type ToolFields = Pick<
  AgentToolRow,
  'name' | 'description' | 'parameters' | 'url' | 'deadlineMs' | 'fallbackMessage' | 'credentialsSealed'
>;

const values = (f: ToolFields) => [
  f.name,
  f.description,
  JSON.stringify(f.parameters),
  f.url,
  f.deadlineMs,
  f.fallbackMessage,
  f.credentialsSealed,
];

export const toolRows = {
  async ofAgent(ctx: RequestContext, companyId: number, agentId: number): Promise<AgentToolRow[]> {
    const rows = await ctx.sql<Row>(
      `SELECT ${COLUMNS} FROM agent_tools WHERE company_id = $1 AND agent_id = $2 ORDER BY name`,
      [companyId, agentId],
    );
    return rows.map(toTool);
  },

  async one(ctx: RequestContext, companyId: number, id: number, lock = false): Promise<AgentToolRow | undefined> {
    const [row] = await ctx.sql<Row>(
      `SELECT ${COLUMNS} FROM agent_tools WHERE id = $1 AND company_id = $2${lock ? ' FOR UPDATE' : ''}`,
      [id, companyId],
    );
    return row && toTool(row);
  },

  async byName(
    ctx: RequestContext,
    companyId: number,
    agentId: number,
    name: string,
  ): Promise<AgentToolRow | undefined> {
    const [row] = await ctx.sql<Row>(
      `SELECT ${COLUMNS} FROM agent_tools WHERE company_id = $1 AND agent_id = $2 AND name = $3`,
      [companyId, agentId, name],
    );
    return row && toTool(row);
  },

  async count(ctx: RequestContext, agentId: number): Promise<number> {
    const [row] = await ctx.sql<{ n: number }>('SELECT count(*)::int AS n FROM agent_tools WHERE agent_id = $1', [
      agentId,
    ]);
    return row.n;
  },

  /** Whether the agent is the company's. */
  async agentOwned(ctx: RequestContext, companyId: number, agentId: number): Promise<boolean> {
    const rows = await ctx.sql('SELECT 1 FROM agents WHERE id = $1 AND company_id = $2', [agentId, companyId]);
    return rows.length > 0;
  },

  /** Inserts; undefined when the agent already has a tool of that name. */
  async insert(
    ctx: RequestContext,
    companyId: number,
    agentId: number,
    fields: ToolFields,
    secretSealed: string,
    at: Date,
  ): Promise<AgentToolRow | undefined> {
    const [row] = await ctx.sql<Row>(
      `INSERT INTO agent_tools (company_id, agent_id, name, description, parameters, url, deadline_ms, fallback_message,
         credentials_sealed, secret_sealed, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8, $9, $10, $11, $11)
       ON CONFLICT (agent_id, name) DO NOTHING RETURNING ${COLUMNS}`,
      [companyId, agentId, ...values(fields), secretSealed, at],
    );
    return row && toTool(row);
  },

  /** Updates; undefined when another tool of the agent has the new name. */
  async update(ctx: RequestContext, id: number, fields: ToolFields, at: Date): Promise<AgentToolRow | undefined> {
    const [row] = await ctx.sql<Row>(
      `UPDATE agent_tools t SET name = $2, description = $3, parameters = $4::jsonb, url = $5, deadline_ms = $6,
         fallback_message = $7, credentials_sealed = $8, updated_at = $9
       WHERE t.id = $1 AND NOT EXISTS (SELECT 1 FROM agent_tools o WHERE o.agent_id = t.agent_id AND o.id <> t.id AND o.name = $2)
       RETURNING ${COLUMNS}`,
      [id, ...values(fields), at],
    );
    return row && toTool(row);
  },

  async remove(ctx: RequestContext, id: number): Promise<void> {
    await ctx.sql('DELETE FROM agent_tools WHERE id = $1', [id]);
  },
};
