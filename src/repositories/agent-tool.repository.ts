import type { RequestContext } from '../context/request-context.js';
import { AgentTool } from '../entities/agent-tool.entity.js';
import { Agent } from '../entities/agent.entity.js';
import type { IdCodec } from '../kernel/ids.js';
import { ownedEntity } from './common.js';

// The tools of a company's agents (docs/adr/0069-tools-for-ai-agents.md): the one module that knows their table. A
// tool's name is unique among its agent's: a second of the same name is refused, not an error.

/** What a create or an update writes. */
export type ToolFields = Pick<
  AgentTool,
  'name' | 'description' | 'parameters' | 'url' | 'deadlineMs' | 'fallbackMessage' | 'credentialsSealed'
>;

export const agentToolRepository = {
  /** The company's agent by any id form; 404 otherwise. */
  agent(ctx: RequestContext, ids: IdCodec, raw: string): Promise<Agent> {
    return ownedEntity(ctx, ids, Agent, { kind: 'agent', what: 'Agent' }, raw);
  },

  /** The agent's tools by name. */
  ofAgent(ctx: RequestContext, agent: Agent): Promise<AgentTool[]> {
    return ctx.em.find(AgentTool, { agent, company: agent.company }, { orderBy: { name: 'asc' } });
  },

  count(ctx: RequestContext, agent: Agent): Promise<number> {
    return ctx.em.count(AgentTool, { agent });
  },

  /** The company's tool by any id form; `lock`: locked until the unit of work ends. 404 otherwise. */
  owned(ctx: RequestContext, ids: IdCodec, raw: string, lock = false): Promise<AgentTool> {
    return ownedEntity(ctx, ids, AgentTool, { kind: 'agent_tool', what: 'Agent tool', lock }, raw);
  },

  /** The tool of that name of a call's agent, or null. */
  byName(ctx: RequestContext, companyId: number, agentId: number, name: string): Promise<AgentTool | null> {
    return ctx.em.findOne(AgentTool, { company: companyId, agent: agentId, name });
  },

  /** Gives the agent a tool; null when it has one of that name already. */
  async create(ctx: RequestContext, agent: Agent, fields: ToolFields, secretSealed: string): Promise<AgentTool | null> {
    const now = new Date();
    const result = await ctx.em
      .createQueryBuilder(AgentTool)
      .insert({ ...fields, company: agent.company, agent, secretSealed, createdAt: now, updatedAt: now })
      .onConflict(['agent', 'name'])
      .ignore()
      .execute('run');
    return result.affectedRows === 0 ? null : ctx.em.findOneOrFail(AgentTool, result.insertId as number);
  },

  /** Changes a tool (locked by the caller); false when another tool of its agent has the new name. */
  async update(ctx: RequestContext, tool: AgentTool, fields: ToolFields): Promise<boolean> {
    if (fields.name !== tool.name && (await ctx.em.count(AgentTool, { agent: tool.agent, name: fields.name })) > 0)
      return false;
    Object.assign(tool, fields);
    await ctx.em.flush();
    return true;
  },

  async remove(ctx: RequestContext, tool: AgentTool): Promise<void> {
    await ctx.em.remove(tool).flush();
  },
};
