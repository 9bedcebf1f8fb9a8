import { ValidationError } from '../kernel/errors.js';
import { INSTANT_YEARS, parseInstant } from '../kernel/time/instant.js';
import { E164, message } from '../kernel/validation.js';
import {
  CALL_PROGRESS,
  CALL_STATUSES,
  PROVIDER_DIRECTIONS,
  SENTIMENTS,
  SMS_BODY_MAX,
  SMS_PROGRESS,
  SMS_STATUSES,
} from '../kernel/vocabulary.js';
import {
  ANALYSIS_LIMITS,
  customAnalysisProblems,
  TURN_SEQUENCE_MAX,
  TURN_SPEAKERS,
  TURN_TEXT_MAX,
} from '../kernel/call-rules.js';

// The provider's callbacks read into typed commands: each form parameter
// checked, the errors named by the provider's parameter names (for the
// provider's operator reading its callback log). callbacks.ts applies them.

/** A turn of a call's conversation, as the provider reports it while the call goes on. */
export interface TurnReported {
  callSid: string;
  sequence: number;
  speaker: string;
  text: string;
}

/** A voice status callback: the call's progress and, with its end, the AI agent's analysis. */
export interface CallStatusChanged {
  callSid: string;
  from: string;
  to: string;
  direction: 'inbound' | 'outbound';
  /** The company's own number on the call (the called one inbound, the caller outbound). */
  ourNumber: string;
  /** The other party's number. */
  otherNumber: string;
  status: string;
  durationSeconds?: number;
  recordingUrl?: string;
  transferredTo?: string;
  transcript?: string;
  sentiment?: string;
  disposition?: string;
  tags?: string[];
  appointmentAt?: Date;
  /** Who answered, by the provider's machine detection (human, machine_start, machine_end_beep, fax, unknown...). */
  answeredBy?: string;
}

/** An inbound call the provider asks how to route (its answer is the instruction). */
export interface InboundCallArrived {
  callSid: string;
  from: string;
  to: string;
}

/** The AI agent calls one of its tools during a call (its answer is the tool's result). */
export interface ToolCalled {
  callSid: string;
  /** The turn of the conversation the call and its result take in the transcript. */
  sequence: number;
  tool: string;
  /** JSON text, checked against the tool's parameters before the tool's endpoint is asked. */
  argumentsText: string;
}

/** The AI agent's post-call analysis of a call (fields it leaves out keep their value). */
export interface CallAnalysisReported {
  callSid: string;
  summary?: string;
  sentiment?: string;
  disposition?: string;
  successful?: boolean;
  customAnalysis?: Record<string, unknown>;
  recordingUrl?: string;
}

/** What became of a message the company sent. */
export interface SmsStatusChanged {
  messageSid: string;
  status: string;
  errorCode?: string;
}

/** A message to one of the company's numbers. */
export interface SmsReceived {
  messageSid: string;
  from: string;
  to: string;
  body: string;
}

export type Params = Record<string, string>;
const CALL_SID = /^CA[0-9a-f]{32}$/;
const MESSAGE_SID = /^SM[0-9a-f]{32}$/;
const DIRECTIONS: readonly string[] = PROVIDER_DIRECTIONS;

export const directionOf = (raw: string | undefined) => (raw?.startsWith('outbound') ? 'outbound' : 'inbound');
/** Which side of a call is the company's: the called number inbound, the caller outbound. */
export const sidesOf = (direction: 'inbound' | 'outbound', from: string, to: string) =>
  direction === 'outbound' ? { ours: from, theirs: to } : { ours: to, theirs: from };

/** Collects the errors of one callback, keyed by the provider's parameter names; throws them all at once. */
class ParamErrors {
  private readonly errors: Record<string, string[]> = {};
  bad(name: string, text: string): void {
    this.errors[name] = [text];
  }
  e164(params: Params, name: string, required: boolean): void {
    const value = params[name];
    if ((required || value !== undefined) && !E164.test(value ?? ''))
      this.bad(name, `The ${name} parameter must be an E.164 number.`);
  }
  /** A turn's number in the call. */
  sequence(params: Params): void {
    if (!/^\d{1,6}$/.test(params.Sequence ?? '') || Number(params.Sequence) > TURN_SEQUENCE_MAX)
      this.bad('Sequence', `The Sequence parameter must be the turn's number, 0 to ${TURN_SEQUENCE_MAX}.`);
  }
  check(): void {
    if (Object.keys(this.errors).length > 0) throw new ValidationError(this.errors);
  }
}

/** The parameters every voice callback names its call by: CallSid, From, To, and (unless `direction` is false) Direction. */
function callParties(params: Params, direction = true): ParamErrors {
  const errors = new ParamErrors();
  if (!CALL_SID.test(params.CallSid ?? ''))
    errors.bad('CallSid', 'The CallSid parameter must be CA followed by 32 hexadecimal digits.');
  errors.e164(params, 'From', true);
  errors.e164(params, 'To', true);
  if (direction && params.Direction !== undefined && !DIRECTIONS.includes(params.Direction))
    errors.bad('Direction', `The Direction parameter must be one of ${DIRECTIONS.join(', ')}.`);
  return errors;
}

export function readCallStatus(params: Params): CallStatusChanged {
  const errors = callParties(params, false);
  if (!(params.CallStatus in CALL_PROGRESS))
    errors.bad('CallStatus', `The CallStatus parameter must be one of ${CALL_STATUSES.join(', ')}.`);
  if (params.CallDuration !== undefined && !/^\d{1,6}$/.test(params.CallDuration))
    errors.bad('CallDuration', 'The CallDuration parameter must be a number of seconds.');
  errors.e164(params, 'TransferredTo', false);
  if (params.Sentiment !== undefined && !(SENTIMENTS as readonly string[]).includes(params.Sentiment))
    errors.bad('Sentiment', 'The Sentiment parameter must be positive, neutral or negative.');
  const appointmentAt = params.AppointmentAt === undefined ? undefined : parseInstant(params.AppointmentAt);
  if (params.AppointmentAt !== undefined && !appointmentAt)
    errors.bad(
      'AppointmentAt',
      `The AppointmentAt parameter must be an ISO 8601 date-time with a zone, in the years ${INSTANT_YEARS.first} to ${INSTANT_YEARS.last}.`,
    );
  if (params.Direction !== undefined && !DIRECTIONS.includes(params.Direction))
    errors.bad('Direction', `The Direction parameter must be one of ${DIRECTIONS.join(', ')}.`);
  if (params.AnsweredBy !== undefined && !/^[a-z_]{1,32}$/.test(params.AnsweredBy))
    errors.bad(
      'AnsweredBy',
      'The AnsweredBy parameter must be human, machine_start, machine_end_beep, fax or unknown.',
    );
  if (params.AnsweredBy !== undefined && !/^[a-z_]{1,32}$/.test(params.AnsweredBy))
    errors.bad(
      'AnsweredBy',
      'The AnsweredBy parameter must be human, machine_start, machine_end_beep, fax or unknown.',
    );
  if (params.RecordingUrl !== undefined && !/^https?:\/\/\S{1,2000}$/.test(params.RecordingUrl))
    errors.bad('RecordingUrl', 'The RecordingUrl parameter must be an http or https URL.');
  errors.check();
  const direction = directionOf(params.Direction);
  const sides = sidesOf(direction, params.From, params.To);
  return {
    callSid: params.CallSid,
    from: params.From,
    to: params.To,
    direction,
    ourNumber: sides.ours,
    otherNumber: sides.theirs,
    status: params.CallStatus,
    durationSeconds: params.CallDuration === undefined ? undefined : Number(params.CallDuration),
    recordingUrl: params.RecordingUrl || undefined,
    transferredTo: params.TransferredTo || undefined,
    transcript: params.Transcription,
    sentiment: params.Sentiment || undefined,
    disposition: params.Disposition,
    tags: params.Tags?.split(',')
      .map((tag) => tag.trim())
      .filter(Boolean),
    appointmentAt: appointmentAt ?? undefined,
    answeredBy: params.AnsweredBy || undefined,
  };
}

export function readInbound(params: Params): InboundCallArrived {
  const errors = callParties(params, false);
  errors.check();
  return { callSid: params.CallSid, from: params.From, to: params.To };
}

/** Arguments a tool call may carry (JSON text). */
const TOOL_ARGUMENTS_MAX = 16_384;

export function readToolCall(params: Params): ToolCalled {
  const errors = callParties(params);
  errors.sequence(params);
  if (!/^[A-Za-z_][A-Za-z0-9_-]{0,63}$/.test(params.Tool ?? ''))
    errors.bad('Tool', "The Tool parameter must be a tool's name: letters, digits, _ and -, at most 64.");
  if ((params.Arguments ?? '').length > TOOL_ARGUMENTS_MAX)
    errors.bad('Arguments', message.maxChars('Arguments', TOOL_ARGUMENTS_MAX));
  errors.check();
  return {
    callSid: params.CallSid,
    sequence: Number(params.Sequence),
    tool: params.Tool,
    argumentsText: params.Arguments ?? '',
  };
}

export function readCallAnalysis(params: Params): CallAnalysisReported {
  const errors = callParties(params);
  if (params.Sentiment !== undefined && !(SENTIMENTS as readonly string[]).includes(params.Sentiment))
    errors.bad('Sentiment', 'The Sentiment parameter must be positive, neutral or negative.');
  if (params.Successful !== undefined && !['true', 'false'].includes(params.Successful))
    errors.bad('Successful', 'The Successful parameter must be true or false.');
  if ((params.Summary ?? '').length > ANALYSIS_LIMITS.summary)
    errors.bad('Summary', message.maxChars('Summary', ANALYSIS_LIMITS.summary));
  if ((params.Disposition ?? '').length > ANALYSIS_LIMITS.disposition)
    errors.bad('Disposition', message.maxChars('Disposition', ANALYSIS_LIMITS.disposition));
  if (params.AnsweredBy !== undefined && !/^[a-z_]{1,32}$/.test(params.AnsweredBy))
    errors.bad(
      'AnsweredBy',
      'The AnsweredBy parameter must be human, machine_start, machine_end_beep, fax or unknown.',
    );
  if (params.RecordingUrl !== undefined && !/^https?:\/\/\S{1,2000}$/.test(params.RecordingUrl))
    errors.bad('RecordingUrl', 'The RecordingUrl parameter must be an http or https URL.');
  let custom: Record<string, unknown> | undefined;
  if (params.CustomAnalysis !== undefined) {
    try {
      custom = JSON.parse(params.CustomAnalysis) as Record<string, unknown>;
    } catch {
      custom = undefined;
    }
    if (custom === null || typeof custom !== 'object' || Array.isArray(custom)) {
      custom = undefined;
      errors.bad('CustomAnalysis', 'The CustomAnalysis parameter must be a JSON object.');
    }
    const problems = custom === undefined ? [] : customAnalysisProblems(custom);
    if (problems.length > 0) errors.bad('CustomAnalysis', problems[0]);
  }
  errors.check();
  return {
    callSid: params.CallSid,
    summary: params.Summary,
    sentiment: params.Sentiment || undefined,
    disposition: params.Disposition,
    successful: params.Successful === undefined ? undefined : params.Successful === 'true',
    customAnalysis: custom,
    recordingUrl: params.RecordingUrl || undefined,
  };
}

export function readTranscriptTurn(params: Params): TurnReported {
  const errors = callParties(params);
  errors.sequence(params);
  if (!(TURN_SPEAKERS as readonly string[]).includes(params.Speaker ?? ''))
    errors.bad('Speaker', `The Speaker parameter must be one of ${TURN_SPEAKERS.join(', ')}.`);
  if ((params.Text ?? '').trim() === '') errors.bad('Text', 'The Text parameter is required.');
  else if (params.Text.length > TURN_TEXT_MAX) errors.bad('Text', message.maxChars('Text', TURN_TEXT_MAX));
  errors.check();
  return { callSid: params.CallSid, sequence: Number(params.Sequence), speaker: params.Speaker, text: params.Text };
}

export function readSmsStatus(params: Params): SmsStatusChanged {
  const errors = new ParamErrors();
  if (!MESSAGE_SID.test(params.MessageSid ?? ''))
    errors.bad('MessageSid', 'The MessageSid parameter must be SM followed by 32 hexadecimal digits.');
  if (!((params.MessageStatus ?? '') in SMS_PROGRESS))
    errors.bad('MessageStatus', `The MessageStatus parameter must be one of ${SMS_STATUSES.join(', ')}.`);
  if (params.ErrorCode !== undefined && !/^\d{1,10}$/.test(params.ErrorCode))
    errors.bad('ErrorCode', 'The ErrorCode parameter must be a number of at most 10 digits.');
  errors.e164(params, 'From', false);
  errors.e164(params, 'To', false);
  errors.check();
  return { messageSid: params.MessageSid, status: params.MessageStatus, errorCode: params.ErrorCode || undefined };
}

export function readSmsInbound(params: Params): SmsReceived {
  const errors = new ParamErrors();
  if (!MESSAGE_SID.test(params.MessageSid ?? ''))
    errors.bad('MessageSid', 'The MessageSid parameter must be SM followed by 32 hexadecimal digits.');
  errors.e164(params, 'From', true);
  errors.e164(params, 'To', true);
  if ((params.Body ?? '').length > SMS_BODY_MAX) errors.bad('Body', message.maxChars('Body', SMS_BODY_MAX));
  errors.check();
  return { messageSid: params.MessageSid, from: params.From, to: params.To, body: params.Body ?? '' };
}
