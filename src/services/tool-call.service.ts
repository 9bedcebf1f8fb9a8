import type { RequestContext } from '../context/request-context.js';
import type { ToolCallFacts, ToolResult } from '../kernel/call-decision.js';
import { TURN_TEXT_MAX } from '../kernel/call-rules.js';
import { NotFoundError } from '../kernel/errors.js';
import type { Logger } from '../observability/logger.js';
import type { ToolCalled } from '../telco/callbacks.js';
import type { CallTranscriptService, CallTurnWritten } from './call-transcript.service.js';
import { callReads } from '../repositories/call-reads.repository.js';
import type { QuietMoments } from './calls/quiet-moments.js';
import { CompanyBatches } from './calls/company-batches.js';

// An AI agent calls one of its tools during a call (docs/adr/0069-tools-for-ai-agents.md):
// the call and its agent are found, the tool is run (its endpoint asked, or its
// fallback), and the provider has the result at once; the call and its result
// become a turn of the live transcript (speaker `tool`) right after, off the
// caller's path. Nothing is held open while the endpoint is asked. A call's id
// and agent are read once per process (docs/adr/0097-tool-calls-from-memory.md):
// they do not change once the call has its agent.

/** Runs the agent's tool (the decision module, wired in the composition root). */
export type RunTool = (ctx: RequestContext, call: ToolCallFacts, startedAt: number) => Promise<ToolResult>;

/** Calls whose id and agent a process keeps, the most recently used. */
const CALLS_KEPT = 10_000;

export class ToolCallService {
  /** Calls by provider sid: their id and agent, once they have one. */
  private readonly calls = new Map<string, { id: number; agentId: number }>();
  /** The turns answered and not yet written, by company: those of a company in one statement (calls/company-batches.ts). */
  private readonly turns: CompanyBatches<{ ctx: RequestContext; callSid: string; turn: CallTurnWritten }>;

  constructor(
    transcripts: CallTranscriptService,
    private readonly run: RunTool,
    private readonly quiet: QuietMoments,
    log: Logger,
  ) {
    this.turns = new CompanyBatches(quiet, {
      write: (batch) =>
        transcripts.turnsOf(
          batch[0].ctx,
          batch.map((one) => one.turn),
        ),
      failed: ({ callSid }, error) =>
        log.error('a tool call was answered but its transcript turn not written', { callSid, error: error.message }),
    });
  }

  toolCalled(ctx: RequestContext, report: ToolCalled, startedAt: number): Promise<ToolResult> {
    return this.quiet.during(() => this.called(ctx, report, startedAt));
  }

  /** Resolves once every turn already answered is written (at shutdown, after HTTP has drained). */
  async settled(): Promise<void> {
    await this.turns.settled();
  }

  private async called(ctx: RequestContext, report: ToolCalled, startedAt: number): Promise<ToolResult> {
    const companyId = await ctx.companyId();
    const call = await this.callOf(ctx, companyId, report.callSid);
    if (!call) throw new NotFoundError('Call');
    const result = await this.run(
      ctx,
      {
        companyId,
        callId: call.id,
        callSid: report.callSid,
        agentId: call.agentId,
        tool: report.tool,
        argumentsText: report.argumentsText,
      },
      startedAt,
    );
    const said = typeof result.result === 'string' ? result.result : JSON.stringify(result.result);
    const text = `${report.tool}(${report.argumentsText || '{}'}) → ${said}`;
    // At the next quiet moment, with the others of the company answered meanwhile.
    this.turns.add(companyId, {
      ctx,
      callSid: report.callSid,
      turn: {
        callId: call.id,
        sequence: report.sequence,
        speaker: 'tool',
        text: text.length > TURN_TEXT_MAX ? `${text.slice(0, TURN_TEXT_MAX - 1)}…` : text,
      },
    });
    return result;
  }

  /** The call's id and agent: kept once it has an agent (a call without one yet is read again next time). */
  private async callOf(ctx: RequestContext, companyId: number, sid: string) {
    const key = `${companyId}:${sid}`;
    const kept = this.calls.get(key);
    if (kept) {
      this.calls.delete(key);
      this.calls.set(key, kept);
      return kept;
    }
    const call = await callReads.toolCallFacts(ctx, sid);
    if (call?.agentId != null) {
      if (this.calls.size >= CALLS_KEPT) this.calls.delete(this.calls.keys().next().value as string);
      this.calls.set(key, { id: call.id, agentId: call.agentId });
    }
    return call;
  }
}
