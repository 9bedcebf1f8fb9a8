import type { RequestContext } from '../context/request-context.js';
import type { AnalysisField } from '../entities/company.entity.js';
import { companyRepository } from '../repositories/company.repository.js';
import { ConflictError, NotFoundError, ValidationError } from '../kernel/errors.js';
import type { IdCodec } from '../kernel/ids.js';
import { Rules } from '../kernel/validation.js';
import { ANALYSIS_FIELD_TYPES, CALL_PROGRESS, SENTIMENTS } from '../kernel/vocabulary.js';
export { ANALYSIS_FIELD_TYPES, ANALYSIS_LIMITS, customAnalysisProblems };
import type { Call } from '../entities/call.entity.js';
import { callRepository } from '../repositories/call.repository.js';
import { analysisOf, type CallAnalysis } from './calls/records.js';
import { contactFields, type ContactService } from './contact.service.js';
import { ANALYSIS_LIMITS, customAnalysisProblems, FIELD_NAME } from '../kernel/call-rules.js';

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

export type { AnalysisField };

/** The problems of custom analysis fields against the company's declarations (none declared: none). */
export function declaredFieldProblems(value: Record<string, unknown>, declared: AnalysisField[]): string[] {
  if (declared.length === 0) return [];
  const byName = new Map(declared.map((field) => [field.name, field]));
  const problems: string[] = [];
  for (const [name, v] of Object.entries(value)) {
    const field = byName.get(name);
    if (!field)
      problems.push(
        `The custom analysis field ${name} is not one of the company's analysis fields (${[...byName.keys()].join(', ')}).`,
      );
    else if (v === null) continue;
    else if (field.type === 'choice' ? !field.choices!.includes(v as string) : typeof v !== field.type) {
      problems.push(
        field.type === 'choice'
          ? `The custom analysis field ${name} must be one of ${field.choices!.join(', ')}.`
          : `The custom analysis field ${name} must be a ${field.type}.`,
      );
    }
  }
  return problems;
}

/** A value as text, an object's keys sorted (the database keeps them in its own order). */
const canonical = (value: unknown) =>
  JSON.stringify(value, value && typeof value === 'object' ? Object.keys(value).sort() : undefined);

export class CallAnalysisService {
  constructor(
    private readonly contacts: ContactService,
    private readonly ids: IdCodec,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /**
   * The provider's analysis callback for the context's company (422 on CustomAnalysis for an undeclared or mistyped
   * field); a call it does not know is left alone.
   */
  async reported(ctx: RequestContext, callSid: string, input: AnalysisInput): Promise<void> {
    await this.checkDeclared(ctx, input, 'CustomAnalysis');
    const call = await callRepository.lockedByProviderId(ctx, callSid);
    if (call) await this.apply(ctx, call, input);
  }

  /** The company's declared analysis fields, in order. */
  async fields(ctx: RequestContext): Promise<AnalysisField[]> {
    return (await companyRepository.setting(ctx, 'callAnalysisFields')) ?? [];
  }

  /** Replaces the company's analysis fields (an empty list: any field of the free form). */
  async setFields(ctx: RequestContext, fields: AnalysisField[]): Promise<AnalysisField[]> {
    const rules = new Rules();
    if (fields.length > ANALYSIS_LIMITS.fields)
      rules.add('fields', `At most ${ANALYSIS_LIMITS.fields} analysis fields.`);
    const seen = new Set<string>();
    fields.slice(0, ANALYSIS_LIMITS.fields + 1).forEach((field, i) => {
      const at = `fields.${i}`;
      if (!FIELD_NAME.test(field.name))
        rules.add(
          `${at}.name`,
          'The name must be lower-case letters, digits and underscores, starting with a letter (at most 64).',
        );
      else if (seen.has(field.name)) rules.add(`${at}.name`, `The field ${field.name} is declared twice.`);
      seen.add(field.name);
      rules
        .oneOf(`${at}.type`, field.type, ANALYSIS_FIELD_TYPES)
        .maxChars(`${at}.description`, field.description, ANALYSIS_LIMITS.description);
      const choices = field.choices ?? [];
      if (field.type === 'choice' && (choices.length === 0 || choices.length > ANALYSIS_LIMITS.choices))
        rules.add(`${at}.choices`, `A choice field lists 1 to ${ANALYSIS_LIMITS.choices} choices.`);
      if (field.type !== 'choice' && choices.length > 0)
        rules.add(`${at}.choices`, 'Only a choice field lists choices.');
      if (choices.some((c) => c === '' || c.length > ANALYSIS_LIMITS.choice))
        rules.add(`${at}.choices`, `Each choice is 1 to ${ANALYSIS_LIMITS.choice} characters.`);
    });
    rules.check();
    const kept = fields.map((f) => ({
      name: f.name,
      type: f.type,
      description: f.description ?? null,
      choices: f.type === 'choice' ? f.choices! : null,
    }));
    await companyRepository.setSetting(ctx, 'callAnalysisFields', kept);
    return kept;
  }

  private async checkDeclared(ctx: RequestContext, input: AnalysisInput, field: string): Promise<void> {
    if (!input.customAnalysis) return;
    const problems = declaredFieldProblems(input.customAnalysis, await this.fields(ctx));
    if (problems.length > 0) throw new ValidationError({ [field]: problems });
  }

  /** Records an analysis through the API: 422 for a bad field, 404 for another company's or an unknown call, 409 before the call has ended. */
  async record(ctx: RequestContext, rawCallId: string, input: AnalysisInput): Promise<void> {
    const rules = new Rules()
      .maxChars('summary', input.summary, ANALYSIS_LIMITS.summary)
      .maxChars('disposition', input.disposition, ANALYSIS_LIMITS.disposition)
      .maxChars('recordingUrl', input.recordingUrl, ANALYSIS_LIMITS.recordingUrl);
    if (input.sentiment !== undefined && input.sentiment !== null)
      rules.oneOf('sentiment', input.sentiment, SENTIMENTS);
    if (input.recordingUrl && !rules.has('recordingUrl') && !/^https?:\/\/\S+$/.test(input.recordingUrl))
      rules.add('recordingUrl', 'The recording url field must be an http or https URL.');
    for (const problem of customAnalysisProblems(input.customAnalysis)) rules.add('customAnalysis', problem);
    rules.check();
    await this.checkDeclared(ctx, input, 'customAnalysis');
    const id = this.ids.decode(rawCallId, 'call');
    const call = id === undefined ? null : await callRepository.lockedById(ctx, id);
    if (!call) throw new NotFoundError('Call');
    if ((CALL_PROGRESS[call.status] ?? 4) < 4)
      throw new ConflictError('A call is analysed once it has ended: this one is still in progress.');
    await this.apply(ctx, call, input);
  }

  /** Writes the analysis and records call.analyzed, unless it is the one the call has. */
  private async apply(ctx: RequestContext, call: Call, input: AnalysisInput): Promise<void> {
    const now = analysisOf(call);
    const next: CallAnalysis = {
      summary: input.summary === undefined ? now.summary : input.summary,
      sentiment: input.sentiment === undefined ? now.sentiment : input.sentiment,
      disposition: input.disposition === undefined ? now.disposition : input.disposition,
      successful: input.successful === undefined ? now.successful : input.successful,
      customAnalysis:
        input.customAnalysis === undefined || input.customAnalysis === null ? now.customAnalysis : input.customAnalysis,
      recordingUrl: input.recordingUrl === undefined ? now.recordingUrl : input.recordingUrl,
    };
    const unchanged =
      call.analyzedAt &&
      (Object.keys(next) as Array<keyof CallAnalysis>).every((k) => canonical(next[k]) === canonical(now[k]));
    if (unchanged) return;
    const at = this.clock();
    Object.assign(call, next, { analyzedAt: at });
    await callRepository.save(ctx);
    const known = call.contact ? await this.contacts.byId(ctx, call.contact.id) : undefined;
    const contact = known
      ? contactFields(known)
      : { phone_number: call.direction === 'inbound' ? call.fromNumber : call.toNumber };
    await ctx.events.record(
      'call.analyzed',
      {
        call_id: String(call.id),
        agent_id: call.agent ? String(call.agent.id) : null,
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
      },
      contact,
    );
  }
}
