import type { RequestContext } from '../context.js';
import { ConflictError, NotFoundError } from '../errors.js';
import type { IdCodec } from '../ids.js';
import { Rules } from '../validation.js';
import { CALL_PROGRESS, SENTIMENTS } from '../vocabulary.js';
import type { AnalysedCall, CallAnalysis } from './calls/records.js';
import { callRecords } from './calls/statements.js';
import { contactFields, type ContactService } from './contact.service.js';

// Post-call analysis (Retell's call_analyzed, Vapi's end-of-call report): a
// summary, the sentiment, the disposition, whether the call reached its goal,
// the company's own fields and the recording, reported by the provider's
// analysis callback or recorded through the API. Each new or changed analysis
// is one call.analyzed; the same analysis again (a repeated callback) changes
// nothing and records nothing, however many arrive at once (the row lock
// orders them).

/** What an analysis may set; a field left out keeps its value. */
export interface AnalysisInput {
  summary?: string | null;
  sentiment?: string | null;
  disposition?: string | null;
  successful?: boolean | null;
  customAnalysis?: Record<string, unknown> | null;
  recordingUrl?: string | null;
}

export const ANALYSIS_LIMITS = { summary: 5000, disposition: 64, fields: 50, fieldValue: 1000, recordingUrl: 2000 } as const;
const FIELD_NAME = /^[a-z][a-z0-9_]{0,63}$/;

/** The problems of an analysis's custom fields, as sentences (empty when none). */
export function customAnalysisProblems(value: unknown): string[] {
  if (value === null || value === undefined) return [];
  if (typeof value !== 'object' || Array.isArray(value)) return ['The custom analysis must be an object of fields.'];
  const entries = Object.entries(value);
  const problems: string[] = [];
  if (entries.length > ANALYSIS_LIMITS.fields) problems.push(`The custom analysis may hold at most ${ANALYSIS_LIMITS.fields} fields.`);
  for (const [name, v] of entries.slice(0, ANALYSIS_LIMITS.fields + 1)) {
    if (!FIELD_NAME.test(name)) problems.push(`The custom analysis field name ${JSON.stringify(name.slice(0, 70))} must be lower-case letters, digits and underscores, starting with a letter (at most 64).`);
    else if (!(v === null || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v)) || typeof v === 'string')) problems.push(`The custom analysis field ${name} must be a string, a number, true, false or null.`);
    else if (typeof v === 'string' && v.length > ANALYSIS_LIMITS.fieldValue) problems.push(`The custom analysis field ${name} must not be longer than ${ANALYSIS_LIMITS.fieldValue} characters.`);
  }
  return problems;
}

/** A value as text, an object's keys sorted (the database keeps them in its own order). */
const canonical = (value: unknown) => JSON.stringify(value, value && typeof value === 'object' ? Object.keys(value).sort() : undefined);

export class CallAnalysisService {
  constructor(
    private readonly contacts: ContactService,
    private readonly ids: IdCodec,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** The provider's analysis callback for the context's company; a call it does not know is left alone. */
  async reported(ctx: RequestContext, callSid: string, input: AnalysisInput): Promise<void> {
    const call = await callRecords.lockForAnalysis(ctx, await ctx.companyId(), { providerCallId: callSid });
    if (call) await this.apply(ctx, call, input);
  }

  /** Records an analysis through the API: 422 for a bad field, 404 for another company's or an unknown call, 409 before the call has ended. */
  async record(ctx: RequestContext, rawCallId: string, input: AnalysisInput): Promise<void> {
    const rules = new Rules()
      .maxChars('summary', input.summary, ANALYSIS_LIMITS.summary)
      .maxChars('disposition', input.disposition, ANALYSIS_LIMITS.disposition)
      .maxChars('recordingUrl', input.recordingUrl, ANALYSIS_LIMITS.recordingUrl);
    if (input.sentiment !== undefined && input.sentiment !== null) rules.oneOf('sentiment', input.sentiment, SENTIMENTS);
    if (input.recordingUrl && !rules.has('recordingUrl') && !/^https?:\/\/\S+$/.test(input.recordingUrl)) rules.add('recordingUrl', 'The recording url field must be an http or https URL.');
    for (const problem of customAnalysisProblems(input.customAnalysis)) rules.add('customAnalysis', problem);
    rules.check();
    const id = this.ids.decode(rawCallId, 'call');
    const call = id === undefined ? undefined : await callRecords.lockForAnalysis(ctx, await ctx.companyId(), { id });
    if (!call) throw new NotFoundError('Call');
    if ((CALL_PROGRESS[call.status] ?? 4) < 4) throw new ConflictError('A call is analysed once it has ended: this one is still in progress.');
    await this.apply(ctx, call, input);
  }

  /** Writes the analysis and records call.analyzed, unless it is the one the call has. */
  private async apply(ctx: RequestContext, call: AnalysedCall, input: AnalysisInput): Promise<void> {
    const next: CallAnalysis = {
      summary: input.summary === undefined ? call.summary : input.summary,
      sentiment: input.sentiment === undefined ? call.sentiment : input.sentiment,
      disposition: input.disposition === undefined ? call.disposition : input.disposition,
      successful: input.successful === undefined ? call.successful : input.successful,
      customAnalysis: input.customAnalysis === undefined || input.customAnalysis === null ? call.customAnalysis : (input.customAnalysis as CallAnalysis['customAnalysis']),
      recordingUrl: input.recordingUrl === undefined ? call.recordingUrl : input.recordingUrl,
    };
    const unchanged = call.analyzedAt !== null && (Object.keys(next) as Array<keyof CallAnalysis>).every((k) => canonical(next[k]) === canonical(call[k]));
    if (unchanged) return;
    const at = this.clock();
    await callRecords.saveAnalysis(ctx, call.id, next, at);
    const known = call.contactId ? await this.contacts.byId(ctx, call.contactId) : undefined;
    const contact = known ? contactFields(known) : { phone_number: call.direction === 'inbound' ? call.fromNumber : call.toNumber };
    await ctx.events.record('call.analyzed', {
      call_id: String(call.id),
      agent_id: call.agentId === null ? null : String(call.agentId),
      caller_number: call.fromNumber,
      called_number: call.toNumber,
      call_direction: call.direction,
      summary: next.summary,
      sentiment: next.sentiment,
      disposition: next.disposition,
      successful: next.successful,
      custom_analysis: next.customAnalysis,
      recording_url: next.recordingUrl,
      analyzed_at: at.toISOString(),
    }, contact);
  }
}
