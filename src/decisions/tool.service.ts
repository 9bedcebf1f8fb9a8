import { Ajv, type ValidateFunction } from 'ajv';
import type { RequestContext } from '../context/request-context.js';
import type { SecretBox } from '../crypto/secret-box.js';
import type { AgentTool } from '../entities/agent-tool.entity.js';
import { BOUNDS } from '../kernel/bounds.js';
import type { ToolCallFacts, ToolResult } from '../kernel/call-decision.js';
import { ConflictError, UnprocessableError } from '../kernel/errors.js';
import type { IdCodec } from '../kernel/ids.js';
import { Rules } from '../kernel/validation.js';
import type { DestinationPolicy } from '../webhooks/config/destination.js';
import { checkDeadline, checkUrl, revealSecret } from './endpoint-rules.js';
import { newSecret } from '../webhooks/config/signing.js';
import {
  checkCredentials,
  type CredentialsRecord,
  credentialsRecord,
  type EndpointCredentials,
  openCredentials,
  sealCredentials,
} from '../webhooks/config/credentials.js';
import type { DecisionCaller } from './caller.js';
import type { BreakerView } from './endpoint-health.js';
import type { ConfigCache } from '../db/config-cache.js';
import { agentToolRepository, type ToolFields } from '../repositories/agent-tool.repository.js';

// Tools for AI agents (docs/adr/0069-tools-for-ai-agents.md): an agent's
// tools, each run by the company's endpoint when the agent calls it during a
// call. The arguments are checked against the tool's JSON Schema first; the
// endpoint is asked like a decision endpoint (signed, within the tool's
// deadline, behind its own breaker); a timeout or an error gives the tool's
// fallback message.

export const TOOL_NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;
export const TOOLS_PER_AGENT = 50;
export const TOOL_DEADLINE_DEFAULT_MS = 3000;
const PARAMETERS_MAX_CHARS = 20_000;
const DEFAULT_FALLBACK = 'The tool is not available right now.';

export interface AgentToolInput {
  name?: string | null;
  description?: string | null;
  parameters?: Record<string, unknown> | null;
  url?: string | null;
  deadlineMs?: number | null;
  fallbackMessage?: string | null;
  /** OAuth2 client credentials and client TLS; null removes them, left out keeps them. */
  credentials?: EndpointCredentials | null;
}

export interface AgentToolRecord
  extends Pick<AgentTool, 'id' | 'name' | 'description' | 'parameters' | 'url' | 'deadlineMs' | 'fallbackMessage'> {
  agentId: number;
  createdAt: Date;
  updatedAt: Date;
  breaker: BreakerView;
  credentials: CredentialsRecord | null;
}

/** A tool as the call path keeps it in memory (ConfigCache, until the company's tools change). */
interface ToolSnapshot {
  id: number;
  companyId: number;
  agentId: number;
  name: string;
  url: string;
  secret: string;
  deadlineMs: number;
  credentialsSealed: string | null;
  fallbackMessage: string;
  validate: ValidateFunction;
}

const schemas = new Ajv({ strict: false, allErrors: false });
const keyOf = (id: number) => `tool:${id}`;

export class AgentToolService {
  constructor(
    private readonly ids: IdCodec,
    private readonly box: SecretBox,
    private readonly caller: DecisionCaller,
    private readonly settings: { destinations: DestinationPolicy },
    private readonly cache: ConfigCache,
  ) {}

  async ofAgent(ctx: RequestContext, rawAgentId: string): Promise<AgentToolRecord[]> {
    const agent = await agentToolRepository.agent(ctx, this.ids, rawAgentId);
    return (await agentToolRepository.ofAgent(ctx, agent)).map((tool) => this.record(tool));
  }

  async view(ctx: RequestContext, rawId: string): Promise<AgentToolRecord> {
    return this.record(await this.find(ctx, rawId));
  }

  async secret(ctx: RequestContext, rawId: string): Promise<string> {
    return revealSecret(this.box, (await this.find(ctx, rawId)).secretSealed);
  }

  async create(
    ctx: RequestContext,
    rawAgentId: string,
    input: AgentToolInput,
  ): Promise<{ tool: AgentToolRecord; secret: string }> {
    const agent = await agentToolRepository.agent(ctx, this.ids, rawAgentId);
    const fields = this.checked(input, undefined);
    if ((await agentToolRepository.count(ctx, agent)) >= TOOLS_PER_AGENT)
      throw new UnprocessableError(`An agent has at most ${TOOLS_PER_AGENT} tools.`);
    const secret = newSecret();
    const tool = await agentToolRepository.create(ctx, agent, fields, this.box.seal(secret));
    if (!tool) throw new ConflictError(`The agent already has a tool named ${fields.name}.`);
    this.forgetAtCommit(ctx, tool);
    void this.caller.warm(tool.url, tool.credentialsSealed ?? null);
    return { tool: this.record(tool), secret };
  }

  async update(ctx: RequestContext, rawId: string, input: AgentToolInput): Promise<AgentToolRecord> {
    const tool = await agentToolRepository.owned(ctx, this.ids, rawId, true);
    const fields = this.checked(input, tool);
    const before = tool.url;
    if (!(await agentToolRepository.update(ctx, tool, fields)))
      throw new ConflictError(`The agent already has a tool named ${fields.name}.`);
    this.forgetAtCommit(ctx, tool);
    if (tool.url !== before) {
      ctx.afterCommit(() => this.caller.forget(keyOf(tool.id)));
      void this.caller.warm(tool.url, tool.credentialsSealed ?? null);
    }
    return this.record(tool);
  }

  async remove(ctx: RequestContext, rawId: string): Promise<boolean> {
    const tool = await agentToolRepository.owned(ctx, this.ids, rawId, true);
    const id = tool.id;
    this.forgetAtCommit(ctx, tool);
    await agentToolRepository.remove(ctx, tool);
    ctx.afterCommit(() => this.caller.forget(keyOf(id)));
    return true;
  }

  /**
   * Runs the agent's tool for a call: the endpoint's result within the deadline, or the fallback message. The tool
   * is kept in memory until the company's tools change (db/config-cache.ts), its secret opened and its parameters'
   * schema compiled.
   */
  async call(ctx: RequestContext, facts: ToolCallFacts, startedAt: number): Promise<ToolResult> {
    const { agentId } = facts;
    const tool =
      agentId === null
        ? undefined
        : await this.cache.get(`tool:${facts.companyId}:${agentId}:${facts.tool}`, async () => {
            const found = await agentToolRepository.byName(ctx, facts.companyId, agentId, facts.tool);
            return { companyId: facts.companyId, value: found ? this.snapshot(found) : null };
          });
    if (!tool) {
      const reason = `the call's agent has no tool named ${facts.tool}`;
      return { source: 'unknown_tool', result: { error: reason }, fallbackReason: null, reason, latencyMs: null };
    }
    const args = readArguments(tool, facts.argumentsText);
    if (typeof args === 'string')
      return {
        source: 'invalid_arguments',
        result: { error: args },
        fallbackReason: null,
        reason: args,
        latencyMs: null,
      };
    const body = JSON.stringify({
      type: 'tool.call',
      timestamp: new Date().toISOString(),
      data: {
        call_sid: facts.callSid,
        call_id: String(facts.callId),
        agent_id: String(tool.agentId),
        tool: tool.name,
        arguments: args,
        deadline_ms: tool.deadlineMs,
      },
    });
    const outcome = await this.caller.decide(
      {
        key: keyOf(tool.id),
        record: { kind: 'tool', id: tool.id, companyId: tool.companyId },
        url: tool.url,
        secret: tool.secret,
        deadlineMs: tool.deadlineMs,
        hedge: false,
        credentialsSealed: tool.credentialsSealed,
      },
      body,
      readToolAnswer,
      startedAt,
    );
    return outcome.value
      ? {
          source: 'endpoint',
          result: outcome.value.result,
          fallbackReason: null,
          reason: null,
          latencyMs: outcome.latencyMs,
        }
      : {
          source: 'fallback',
          result: tool.fallbackMessage,
          fallbackReason: outcome.fallbackReason ?? null,
          reason: outcome.reason,
          latencyMs: outcome.latencyMs,
        };
  }

  /** A tool as the call path keeps it: what asking it needs, its secret opened, its parameters' schema compiled. */
  private snapshot(tool: AgentTool): ToolSnapshot {
    return {
      id: tool.id,
      companyId: tool.company.id,
      agentId: tool.agent.id,
      name: tool.name,
      url: tool.url,
      secret: this.box.open(tool.secretSealed) ?? '',
      deadlineMs: tool.deadlineMs,
      credentialsSealed: tool.credentialsSealed ?? null,
      fallbackMessage: tool.fallbackMessage,
      validate: compiled(tool.parameters),
    };
  }

  /** This process forgets the company's tools at the commit (the others, by the trigger's notification). */
  private forgetAtCommit(ctx: RequestContext, tool: AgentTool): void {
    const companyId = tool.company.id;
    ctx.afterCommit(() => this.cache.forget(companyId));
  }

  private find(ctx: RequestContext, rawId: string): Promise<AgentTool> {
    return agentToolRepository.owned(ctx, this.ids, rawId);
  }

  private checked(input: AgentToolInput, current: AgentTool | undefined): ToolFields {
    const b = BOUNDS.agentTool;
    const name = input.name ?? current?.name;
    const description = input.description ?? current?.description;
    const parameters = input.parameters ?? current?.parameters;
    const url = input.url ?? current?.url;
    const deadline = input.deadlineMs ?? current?.deadlineMs ?? TOOL_DEADLINE_DEFAULT_MS;
    const fallbackMessage = input.fallbackMessage ?? current?.fallbackMessage ?? DEFAULT_FALLBACK;
    const rules = new Rules()
      .required('name', name)
      .required('description', description)
      .maxChars('description', description, b.description.maxLength)
      .required('parameters', parameters)
      .maxChars('fallbackMessage', fallbackMessage, b.fallbackMessage.maxLength);
    if (name && !TOOL_NAME.test(name))
      rules.add(
        'name',
        `The name field must be letters, digits, _ and -, starting with a letter or _, at most 64 (got ${JSON.stringify(name)}).`,
      );
    checkUrl(rules, url, b.url, this.settings.destinations);
    checkDeadline(rules, deadline, b.deadlineMs);
    if (parameters) {
      const problem = schemaProblem(parameters);
      if (problem) rules.add('parameters', problem);
    }
    const credentials = checkCredentials(input.credentials, url, this.settings.destinations, rules);
    rules.check();
    return {
      name: name!,
      description: description!,
      parameters: parameters!,
      url: url!,
      deadlineMs: deadline,
      fallbackMessage,
      credentialsSealed:
        credentials === undefined ? (current?.credentialsSealed ?? null) : sealCredentials(this.box, credentials),
    };
  }

  private record(tool: AgentTool): AgentToolRecord {
    return {
      id: tool.id,
      agentId: tool.agent.id,
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters,
      url: tool.url,
      deadlineMs: tool.deadlineMs,
      fallbackMessage: tool.fallbackMessage,
      createdAt: tool.createdAt,
      updatedAt: tool.updatedAt,
      breaker: this.caller.breaker(keyOf(tool.id)),
      credentials: credentialsRecord(openCredentials(this.box, tool.credentialsSealed ?? null)),
    };
  }
}

/** A schema's validator, not kept by ajv: a snapshot forgotten takes its validator with it. */
function compiled(parameters: Record<string, unknown>): ValidateFunction {
  try {
    return schemas.compile(parameters);
  } finally {
    schemas.removeSchema(parameters);
  }
}

/** The arguments read and checked against the tool's schema, or what is wrong with them. */
function readArguments(tool: ToolSnapshot, text: string): Record<string, unknown> | string {
  let args: unknown;
  try {
    args = JSON.parse(text || '{}');
  } catch {
    return 'the arguments are not JSON';
  }
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return 'the arguments must be a JSON object';
  const { validate } = tool;
  if (validate(args)) return args as Record<string, unknown>;
  const [first] = validate.errors ?? [];
  return `the arguments do not match the tool's parameters: ${first?.instancePath || '/'} ${first?.message ?? 'is invalid'}`;
}

/** Why a tool's parameters are not a JSON Schema of an object, or undefined. */
function schemaProblem(parameters: Record<string, unknown>): string | undefined {
  if (JSON.stringify(parameters).length > PARAMETERS_MAX_CHARS)
    return `The parameters field must be at most ${PARAMETERS_MAX_CHARS} characters of JSON.`;
  if (parameters.type !== 'object')
    return `The parameters field must be a JSON Schema whose type is "object" (got ${JSON.stringify(parameters.type ?? null)}).`;
  try {
    schemas.compile(parameters);
    return undefined;
  } catch (error) {
    return `The parameters field must be a valid JSON Schema: ${(error as Error).message.slice(0, 200)}.`;
  } finally {
    schemas.removeSchema(parameters);
  }
}

/** The endpoint's answer: `{ "result": <any JSON> }`. */
function readToolAnswer(text: string): { result: unknown } | string {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return 'the answer is not JSON';
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json) || !('result' in json))
    return 'the answer must be a JSON object with a result';
  return { result: (json as { result: unknown }).result };
}
