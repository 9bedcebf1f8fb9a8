import type { RequestContext } from '../context/request-context.js';
import type { ToolCallFacts, ToolResult } from '../kernel/call-decision.js';
import { TURN_TEXT_MAX } from '../kernel/call-rules.js';
import { NotFoundError } from '../kernel/errors.js';
import type { ToolCalled } from '../telco/callbacks.js';
import type { CallTranscriptService } from './call-transcript.service.js';
import { callRepository } from '../repositories/call.repository.js';

// An AI agent calls one of its tools during a call (docs/adr/0069-tools-for-ai-agents.md):
// the call and its agent are read, the tool is run (its endpoint asked, or its
// fallback), and the call and its result become a turn of the live transcript
// (speaker `tool`). Nothing is held open while the endpoint is asked.

/** Runs the agent's tool (the decision module, wired in the composition root). */
export type RunTool = (ctx: RequestContext, call: ToolCallFacts, startedAt: number) => Promise<ToolResult>;

export class ToolCallService {
  constructor(
    private readonly transcripts: CallTranscriptService,
    private readonly run: RunTool,
  ) {}

  async toolCalled(ctx: RequestContext, report: ToolCalled, startedAt: number): Promise<ToolResult> {
    const companyId = await ctx.companyId();
    const call = await callRepository.byProviderId(ctx, report.callSid);
    if (!call) throw new NotFoundError('Call');
    const result = await this.run(
      ctx,
      {
        companyId,
        callId: call.id,
        callSid: report.callSid,
        agentId: call.agent?.id ?? null,
        tool: report.tool,
        argumentsText: report.argumentsText,
      },
      startedAt,
    );
    const said = typeof result.result === 'string' ? result.result : JSON.stringify(result.result);
    const text = `${report.tool}(${report.argumentsText || '{}'}) → ${said}`;
    await ctx.unitOfWork((uow) =>
      this.transcripts.turnReported(uow, {
        callSid: report.callSid,
        sequence: report.sequence,
        speaker: 'tool',
        text: text.length > TURN_TEXT_MAX ? `${text.slice(0, TURN_TEXT_MAX - 1)}…` : text,
      }),
    );
    return result;
  }
}
