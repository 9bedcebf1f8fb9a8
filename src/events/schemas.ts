import { decision } from './decision-schema.js';
import { E164 } from '../kernel/validation.js';
import { SENTIMENTS, TERMINAL_CALL_STATUSES } from '../kernel/vocabulary.js';
import type { EventType } from './types.js';
import { dateTime, type EventSpec, int, nullable, type Schema, str } from './schema-parts.js';
import { DIALER_SPECS } from './dialer-schemas.js';

// The JSON Schema of each event's `data` and an example of it (src/events/catalog.ts documents them).

export type { Schema } from './schema-parts.js';

/** The contact an event concerns, with the webhook's selected form fields only; null when it concerns none. */
export const contact: Schema = {
  type: ['object', 'null'],
  description:
    "The contact the event concerns, holding the webhook's form data fields; null when the event concerns no contact",
  additionalProperties: true,
};

const agent: Schema = {
  agent_id: str('Agent id'),
  name: str('Agent name'),
  active: { type: 'boolean', description: 'Whether the agent may take calls' },
  online: { type: 'boolean', description: 'Whether the agent is online now' },
};

const callBase: Schema = {
  call_id: str('Call id'),
  agent_id: nullable(str('Agent id')),
  caller_number: str('Caller phone number, E.164'),
  called_number: str('Called phone number, E.164'),
  call_direction: str('inbound or outbound', { enum: ['inbound', 'outbound'] }),
};

const smsBase: Schema = {
  message_id: str('Message id'),
  from_number: str('Sender, E.164'),
  to_number: str('Recipient, E.164'),
  body: str('Message text'),
};

/** What every operator event says of the webhook it concerns. */
const webhookFields: Schema = {
  webhook_id: str('The webhook the event is about'),
  title: str("The webhook's title"),
  url: str("The webhook's endpoint URL", { format: 'uri' }),
};
const WEBHOOK_EXAMPLE = { webhook_id: '12', title: 'CRM sync', url: 'https://crm.example/hooks/switchboard' };
const lastAnswer: Schema = {
  last_status_code: nullable(
    int('The status of the last failed attempt; null when none came (a timeout or a connection failure)'),
  ),
  last_error: nullable(str('Why the last attempt failed without a status, such as a timeout')),
};

export type { EventSpec } from './schema-parts.js';

const CALL_EXAMPLE = {
  call_id: '5012',
  agent_id: '7',
  caller_number: '+14155550100',
  called_number: '+12125550199',
  call_direction: 'inbound',
};
const SMS_EXAMPLE = {
  message_id: 'SM5f1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e',
  from_number: '+14155550100',
  to_number: '+12125550199',
  body: 'Yes, Tuesday at 3 pm works.',
};
export const CONTACT_EXAMPLE = { phone_number: '+14155550100', first_name: 'Ada', last_name: 'Lovelace' };

export const SPECS: Record<EventType, EventSpec> = {
  'call.started': {
    properties: { ...callBase, started_at: dateTime('When the call began'), decision },
    required: ['call_id', 'caller_number', 'called_number', 'call_direction', 'started_at'],
    example: { ...CALL_EXAMPLE, started_at: '2026-11-18T17:00:00.000Z' },
  },
  'call.answered': {
    properties: { ...callBase, answered_at: dateTime('When the call was answered') },
    required: ['call_id', 'caller_number', 'called_number', 'call_direction', 'answered_at'],
    example: { ...CALL_EXAMPLE, answered_at: '2026-11-18T17:00:04.000Z' },
  },
  'call.transferred': {
    properties: {
      ...callBase,
      transferred_to: str('The E.164 number the call was transferred to', { pattern: E164.source }),
      transferred_at: dateTime('When the call was transferred'),
    },
    required: ['call_id', 'caller_number', 'called_number', 'call_direction', 'transferred_to', 'transferred_at'],
    example: { ...CALL_EXAMPLE, transferred_to: '+12125550142', transferred_at: '2026-11-18T17:02:10.000Z' },
  },
  'call.ended': {
    // The spec's shape.
    properties: {
      ...callBase,
      call_duration: int('Duration in seconds'),
      call_status: str('Final status, such as completed, no-answer, busy or failed', {
        enum: [...TERMINAL_CALL_STATUSES],
      }),
      recording_url: nullable(str('Recording URL', { format: 'uri' })),
      transcription: nullable(str('Transcript of the call')),
      sentiment: nullable(str('positive, neutral or negative', { enum: [...SENTIMENTS, null] })),
      disposition: nullable(str('Outcome of the call')),
      tags: { type: 'array', items: { type: 'string' }, description: 'Tags the analysis gave the call' },
      custom_fields: { type: 'object', additionalProperties: true, description: 'Free keys' },
    },
    required: [
      'call_id',
      'agent_id',
      'caller_number',
      'called_number',
      'call_duration',
      'call_status',
      'call_direction',
      'recording_url',
      'transcription',
      'sentiment',
      'disposition',
      'tags',
      'custom_fields',
    ],
    example: {
      ...CALL_EXAMPLE,
      call_duration: 184,
      call_status: 'completed',
      recording_url: 'https://recordings.example/RE5012.mp3',
      transcription: 'Agent: Hello, this is Ava from Acme. ...',
      sentiment: 'positive',
      disposition: 'Appointment booked',
      tags: ['appointment', 'new-patient'],
      custom_fields: { source: 'google-ads' },
    },
  },
  'call.analyzed': {
    properties: {
      ...callBase,
      summary: nullable(str('What the call was about, in a few sentences')),
      sentiment: nullable(str('positive, neutral or negative', { enum: ['positive', 'neutral', 'negative', null] })),
      disposition: nullable(str('Outcome of the call')),
      successful: {
        type: ['boolean', 'null'],
        description: 'Whether the call reached its goal, as the analysis judged; null when not judged',
      },
      custom_analysis: {
        type: 'object',
        additionalProperties: { type: ['string', 'number', 'boolean', 'null'] },
        description: "The company's own analysis fields: at most 50, each a string, number, boolean or null",
      },
      recording_url: nullable(str('Recording URL', { format: 'uri' })),
      analyzed_at: dateTime('When this analysis was recorded'),
    },
    required: [
      'call_id',
      'agent_id',
      'caller_number',
      'called_number',
      'call_direction',
      'summary',
      'sentiment',
      'disposition',
      'successful',
      'custom_analysis',
      'recording_url',
      'analyzed_at',
    ],
    example: {
      ...CALL_EXAMPLE,
      summary: 'The caller asked for a cleaning next week and booked Tuesday at 3 pm.',
      sentiment: 'positive',
      disposition: 'Appointment booked',
      successful: true,
      custom_analysis: { insurance_provider: 'Delta Dental', new_patient: true },
      recording_url: 'https://recordings.example/RE5012.mp3',
      analyzed_at: '2026-11-18T17:03:30.000Z',
    },
  },
  'agent.created': {
    properties: agent,
    required: ['agent_id', 'name', 'active', 'online'],
    example: { agent_id: '7', name: 'Ava', active: true, online: false },
  },
  'agent.updated': {
    properties: { ...agent, changes: { type: 'array', items: { type: 'string' }, description: 'Fields that changed' } },
    required: ['agent_id', 'name', 'active', 'online', 'changes'],
    example: { agent_id: '7', name: 'Ava (front desk)', active: true, online: false, changes: ['name'] },
  },
  'agent.status_changed': {
    properties: {
      ...agent,
      status: str('online or offline', { enum: ['online', 'offline'] }),
      previous_status: str('online or offline', { enum: ['online', 'offline'] }),
    },
    required: ['agent_id', 'name', 'active', 'online', 'status', 'previous_status'],
    example: { agent_id: '7', name: 'Ava', active: true, online: true, status: 'online', previous_status: 'offline' },
  },
  'agent.performance': {
    properties: {
      agent_id: str('Agent id'),
      name: str('Agent name'),
      metric: str('answer_rate or average_sentiment', { enum: ['answer_rate', 'average_sentiment'] }),
      value: { type: 'number', description: 'The metric over the last calls' },
      threshold: { type: 'number', description: "The company's threshold" },
      direction: str('below or above: which way the metric crossed', { enum: ['below', 'above'] }),
      calls_considered: int('How many recent calls the metric covers'),
    },
    required: ['agent_id', 'name', 'metric', 'value', 'threshold', 'direction', 'calls_considered'],
    example: {
      agent_id: '7',
      name: 'Ava',
      metric: 'answer_rate',
      value: 0.55,
      threshold: 0.6,
      direction: 'below',
      calls_considered: 20,
    },
  },
  'campaign.started': {
    properties: {
      campaign_id: str('Campaign id'),
      name: str('Campaign name'),
      started_at: dateTime('When it started'),
    },
    required: ['campaign_id', 'name', 'started_at'],
    example: { campaign_id: '12', name: 'November reactivation', started_at: '2026-11-18T15:00:00.000Z' },
  },
  'campaign.completed': {
    properties: {
      campaign_id: str('Campaign id'),
      name: str('Campaign name'),
      completed_at: dateTime('When it completed'),
      leads: int('Leads in the campaign'),
    },
    required: ['campaign_id', 'name', 'completed_at', 'leads'],
    example: { campaign_id: '12', name: 'November reactivation', completed_at: '2026-11-20T21:00:00.000Z', leads: 240 },
  },
  ...DIALER_SPECS,
  'lead.generated': {
    properties: {
      lead_id: str('Lead id'),
      campaign_id: nullable(str('Campaign id')),
      pipeline_stage_id: nullable(str('Pipeline stage id')),
      source: nullable(str('Where the lead came from')),
    },
    required: ['lead_id', 'campaign_id', 'pipeline_stage_id', 'source'],
    example: { lead_id: '301', campaign_id: '12', pipeline_stage_id: null, source: 'inbound call' },
  },
  'appointment.scheduled': {
    properties: {
      call_id: nullable(str('The call that booked it')),
      appointment_at: dateTime('When the appointment is'),
      agent_id: nullable(str('Agent id')),
      campaign_id: str("The campaign whose call booked it; only when a campaign's call did"),
    },
    required: ['call_id', 'appointment_at', 'agent_id'],
    example: { call_id: '5012', appointment_at: '2026-11-24T20:00:00.000Z', agent_id: '7', campaign_id: '12' },
  },
  'sms.sent': {
    properties: { ...smsBase, status: str('The provider status: sent or delivered', { enum: ['sent', 'delivered'] }) },
    required: ['message_id', 'from_number', 'to_number', 'body', 'status'],
    example: { ...SMS_EXAMPLE, body: 'Reminder: your appointment is Tuesday at 3 pm.', status: 'delivered' },
  },
  'sms.received': {
    properties: smsBase,
    required: ['message_id', 'from_number', 'to_number', 'body'],
    example: SMS_EXAMPLE,
  },
  'sms.failed': {
    properties: {
      ...smsBase,
      status: str('failed or undelivered', { enum: ['failed', 'undelivered'] }),
      error_code: nullable(str('The provider error code')),
    },
    required: ['message_id', 'from_number', 'to_number', 'body', 'status', 'error_code'],
    example: {
      ...SMS_EXAMPLE,
      body: 'Reminder: your appointment is Tuesday at 3 pm.',
      status: 'undelivered',
      error_code: '30003',
    },
  },
  'sms.replied': {
    properties: { ...smsBase, in_reply_to: str('Id of the message this answers') },
    required: ['message_id', 'from_number', 'to_number', 'body', 'in_reply_to'],
    example: { ...SMS_EXAMPLE, in_reply_to: 'SM0a1b2c3d4e5f60718293a4b5c6d7e8f9' },
  },
  'webhook.failing': {
    properties: {
      ...webhookFields,
      percent: {
        type: 'integer',
        format: 'int32',
        enum: [50, 90],
        description: 'How much of the disable window has passed: 50, then 90',
      },
      failing_since: dateTime('When the failures began (the first failed attempt since the last success)'),
      disable_at: dateTime('When the webhook is switched off if it keeps failing'),
      ...lastAnswer,
    },
    required: [
      'webhook_id',
      'title',
      'url',
      'percent',
      'failing_since',
      'disable_at',
      'last_status_code',
      'last_error',
    ],
    example: {
      ...WEBHOOK_EXAMPLE,
      percent: 50,
      failing_since: '2026-11-16T09:00:00.000Z',
      disable_at: '2026-11-21T09:00:00.000Z',
      last_status_code: 503,
      last_error: null,
    },
  },
  'webhook.disabled': {
    properties: {
      ...webhookFields,
      reason: str('gone: the endpoint answered 410; failing: every attempt failed for WEBHOOK_DISABLE_AFTER', {
        enum: ['gone', 'failing'],
      }),
      failing_since: nullable(dateTime('When the failures began; null for a 410 out of the blue')),
      disabled_at: dateTime('When it was switched off'),
    },
    required: ['webhook_id', 'title', 'url', 'reason', 'failing_since', 'disabled_at'],
    example: {
      ...WEBHOOK_EXAMPLE,
      reason: 'failing',
      failing_since: '2026-11-16T09:00:00.000Z',
      disabled_at: '2026-11-21T09:00:04.000Z',
    },
  },
  'webhook.recovered': {
    properties: {
      ...webhookFields,
      failing_since: dateTime('When the failures began'),
      recovered_at: dateTime('When it answered 2xx again'),
    },
    required: ['webhook_id', 'title', 'url', 'failing_since', 'recovered_at'],
    example: {
      ...WEBHOOK_EXAMPLE,
      failing_since: '2026-11-16T09:00:00.000Z',
      recovered_at: '2026-11-19T11:30:00.000Z',
    },
  },
  'delivery.exhausted': {
    properties: {
      ...webhookFields,
      delivery_id: str('The delivery (msg_...) whose schedule ran out'),
      event: str('The event type it carried'),
      event_id: str('The event it carried (evt_...)'),
      attempts: int('Attempts made'),
      ...lastAnswer,
    },
    required: [
      'webhook_id',
      'title',
      'url',
      'delivery_id',
      'event',
      'event_id',
      'attempts',
      'last_status_code',
      'last_error',
    ],
    example: {
      ...WEBHOOK_EXAMPLE,
      delivery_id: 'msg_01JD8Z6Q3W4XK0V8N2B5C7D9EF',
      event: 'call.ended',
      event_id: 'evt_01JD8Z6Q3TZC4M0S8V2W6X9Y1A',
      attempts: 5,
      last_status_code: 500,
      last_error: null,
    },
  },
};
