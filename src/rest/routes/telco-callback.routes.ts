import { BOUNDS } from '../../kernel/bounds.js';
import { FALLBACK_REASONS } from '../../kernel/call-decision.js';
import { CALL_STATUSES, PROVIDER_DIRECTIONS, SENTIMENTS, SMS_STATUSES } from '../../kernel/vocabulary.js';
import type { IngressRoute, Param } from '../route.js';

// The provider's callbacks (docs/design.md §5, "Event sources"): rows of the
// ingress kind. The provider posts form-encoded parameters signed with the
// account's auth token; each row names the callback the telco adapter
// (src/telco/callbacks.ts) reads and applies.

const accountSid: Param = { type: 'string', required: true, description: 'AC followed by 32 hexadecimal digits' };
/** The call a voice callback is about, as both voice callbacks name it. */
const callParties: Record<string, Param> = {
  CallSid: { type: 'string', required: true, description: 'CA followed by 32 hexadecimal digits' },
  From: { type: 'string', required: true, description: 'Caller, E.164' },
  To: { type: 'string', required: true, description: 'Called number, E.164' },
  Direction: { type: 'string', enum: PROVIDER_DIRECTIONS, description: 'Which way the call goes' },
};
const sentiment: Param = { type: 'string', enum: SENTIMENTS };
const recordingUrl: Param = { type: 'string', description: 'The recording, an http or https URL' };
const messageSid: Param = { type: 'string', required: true, description: 'SM followed by 32 hexadecimal digits' };

export const telcoCallbackRoutes: IngressRoute[] = [
  {
    operationId: 'voiceInboundCallback',
    method: 'POST',
    path: '/api/telco/voice/inbound',
    tag: 'Provider callbacks',
    summary: 'Inbound call: how to route it',
    description:
      "The provider asks what to do with a call to one of the company's numbers, and waits. Switchboard asks the " +
      "company's decision endpoint (the number's own, else the company's), within its deadline; a timeout, an error, " +
      'an answer that does not validate or an open circuit breaker gives the fallback. Without an endpoint the ' +
      "number's AI agent answers. The call is recorded with its decision (call.started carries it), and the answer " +
      'is the instruction, as TwiML-style markup: `<Connect><Agent id>` with `<Parameter>` variables, `<Dial>` a ' +
      'number, or `<Reject>`. A repeated callback for the call answers the same instruction without asking again.',
    params: { AccountSid: accountSid, CallSid: callParties.CallSid, From: callParties.From, To: callParties.To },
    callback: 'voiceInbound',
    answer: {
      contentType: 'text/xml',
      example:
        '<?xml version="1.0" encoding="UTF-8"?><Response><Connect><Agent id="3"><Parameter name="first_name" value="Ada"/></Agent></Connect></Response>',
    },
  },
  {
    operationId: 'voiceToolCallback',
    method: 'POST',
    path: '/api/telco/voice/tool',
    tag: 'Provider callbacks',
    summary: 'An AI agent calls a tool',
    description:
      'During a call the agent calls one of its tools and waits for the result. Switchboard checks the arguments ' +
      "against the tool's JSON Schema, asks the tool's endpoint (signed, within the tool's deadline), and answers " +
      "with the result to put into the conversation: the endpoint's `result`, or the tool's fallback message " +
      '(`source` fallback, with the reason). Arguments that do not match, or a tool the agent does not have, are ' +
      'answered at once with `source` invalid_arguments or unknown_tool and what is wrong. The call and its result ' +
      "become the transcript's turn Sequence (speaker tool). A call the account does not know is a 404.",
    params: {
      AccountSid: accountSid,
      ...callParties,
      Sequence: { type: 'string', required: true, description: "The turn's number in the call, from 0" },
      Tool: { type: 'string', required: true, description: "The tool's name, as the agent knows it" },
      Arguments: {
        type: 'string',
        description: 'JSON object of the arguments (at most 16,384 characters); left out: {}',
      },
    },
    callback: 'voiceTool',
    answer: {
      contentType: 'application/json',
      schema: {
        type: 'object',
        required: ['result', 'source', 'fallback_reason', 'reason'],
        additionalProperties: false,
        properties: {
          result: { description: "The endpoint's result (any JSON), or the fallback message" },
          source: { type: 'string', enum: ['endpoint', 'fallback', 'invalid_arguments', 'unknown_tool'] },
          fallback_reason: {
            type: ['string', 'null'],
            enum: [...FALLBACK_REASONS, null],
            description:
              'With source fallback: why, as a code (docs/call-routing.md, "Fallback rules"); null otherwise',
          },
          reason: {
            type: ['string', 'null'],
            maxLength: 1000,
            description:
              'In words: why the endpoint was not asked (invalid_arguments, unknown_tool) or its answer not taken (fallback)',
          },
        },
      },
      example: {
        result: { slots: ['2026-12-01T15:00:00Z'] },
        source: 'endpoint',
        fallback_reason: null,
        reason: null,
      },
    },
  },
  {
    operationId: 'voiceStatusCallback',
    method: 'POST',
    path: '/api/telco/voice/status',
    tag: 'Provider callbacks',
    summary: 'Voice status callback',
    description:
      'The provider reports a call: initiated, ringing, in-progress, completed (or busy, no-answer, failed, canceled). ' +
      'Creates and advances the call record (the AI dashboard reads it) and records call.started, call.answered, call.transferred and call.ended. ' +
      "A repeated or late callback changes nothing. The AI agent's analysis (Transcription, Sentiment, " +
      'Disposition, Tags, AppointmentAt) comes with the completed callback.',
    params: {
      AccountSid: accountSid,
      ...callParties,
      CallStatus: { type: 'string', required: true, enum: CALL_STATUSES },
      CallDuration: { type: 'string', description: 'Seconds, with the final status' },
      RecordingUrl: { ...recordingUrl, description: 'The recording, with the final status' },
      TransferredTo: { type: 'string', description: 'E.164 number the call was transferred to' },
      Transcription: { type: 'string', description: "The AI agent's transcript" },
      Sentiment: sentiment,
      Disposition: { type: 'string', description: 'Outcome of the call' },
      Tags: { type: 'string', description: 'Comma-separated tags' },
      AppointmentAt: { type: 'string', description: 'ISO 8601: the appointment the call booked' },
    },
    callback: 'voiceStatus',
  },
  {
    operationId: 'voiceAnalysisCallback',
    method: 'POST',
    path: '/api/telco/voice/analysis',
    tag: 'Provider callbacks',
    summary: 'Post-call analysis callback',
    description:
      "The AI agent's analysis of a call, after it ended: summary, sentiment, disposition, whether it reached its goal and the company's own fields. " +
      'Records call.analyzed when the analysis is new or changed; a repeated callback changes nothing. A ' +
      'parameter left out keeps its value; a call the account does not know is left alone.',
    params: {
      AccountSid: accountSid,
      ...callParties,
      Summary: { type: 'string', ...BOUNDS.analysis.summary, description: 'What the call was about' },
      Sentiment: sentiment,
      Disposition: { type: 'string', ...BOUNDS.analysis.disposition, description: 'Outcome of the call' },
      Successful: { type: 'string', enum: ['true', 'false'], description: 'Whether the call reached its goal' },
      CustomAnalysis: {
        type: 'string',
        description: "JSON object of the company's analysis fields (at most 50; strings, numbers, booleans, null)",
      },
      RecordingUrl: recordingUrl,
    },
    callback: 'voiceAnalysis',
  },
  {
    operationId: 'voiceTranscriptCallback',
    method: 'POST',
    path: '/api/telco/voice/transcript',
    tag: 'Provider callbacks',
    summary: 'Live transcript callback',
    description:
      "One turn of a call's conversation while it goes on. Kept once per call and Sequence (a repeated callback adds nothing) " +
      "and announced to the call's GraphQL subscribers (callTranscript); not a webhook event. A call the account does not know is left alone.",
    params: {
      AccountSid: accountSid,
      ...callParties,
      Sequence: { type: 'string', required: true, description: "The turn's number in the call, from 0" },
      Speaker: { type: 'string', required: true, enum: ['agent', 'caller'] },
      Text: { type: 'string', required: true, ...BOUNDS.transcript.text, description: 'What was said' },
    },
    callback: 'voiceTranscript',
  },
  {
    operationId: 'smsStatusCallback',
    method: 'POST',
    path: '/api/telco/sms/status',
    tag: 'Provider callbacks',
    summary: 'SMS status callback',
    description:
      'The provider reports what became of a message the company sent: sms.sent once it is sent or ' +
      'delivered, sms.failed once it failed or was undelivered. Repeats and late reports change nothing.',
    params: {
      AccountSid: accountSid,
      MessageSid: messageSid,
      MessageStatus: { type: 'string', required: true, enum: SMS_STATUSES },
      ErrorCode: { type: 'string', description: "The provider's error code, with failed and undelivered" },
      From: { type: 'string', description: "The company's number, E.164" },
      To: { type: 'string', description: 'The recipient, E.164' },
    },
    callback: 'smsStatus',
  },
  {
    operationId: 'smsInboundCallback',
    method: 'POST',
    path: '/api/telco/sms/inbound',
    tag: 'Provider callbacks',
    summary: 'Inbound SMS',
    description:
      "A message to one of the company's numbers: sms.received, and sms.replied when the company sent to " +
      'that number within the last 7 days. A repeated callback is recorded once.',
    params: {
      AccountSid: accountSid,
      MessageSid: messageSid,
      From: { type: 'string', required: true, description: 'The sender, E.164' },
      To: { type: 'string', required: true, description: "The company's number, E.164" },
      Body: { type: 'string', ...BOUNDS.sms.body, description: 'The text' },
    },
    callback: 'smsInbound',
  },
];
