// The names of the twenty-five domain events, their categories and what each tells (src/events/catalog.ts).

/** The webhook events of the spec: name, category, what happened. */
export const EVENT_TYPES = [
  ['call.started', 'call', 'A call begins'],
  ['call.ended', 'call', 'A call completes'],
  ['call.answered', 'call', 'A call is answered'],
  ['call.transferred', 'call', 'A call is transferred'],
  ['call.analyzed', 'call', "The AI agent's post-call analysis is recorded or changes"],
  ['agent.created', 'agent', 'A new AI agent is created'],
  ['agent.updated', 'agent', 'Agent configuration changes'],
  ['agent.status_changed', 'agent', 'An agent goes online or offline'],
  ['agent.performance', 'agent', 'A performance threshold event occurs'],
  ['campaign.started', 'campaign', 'A campaign begins'],
  ['campaign.completed', 'campaign', 'A campaign finishes'],
  ['campaign.paused', 'campaign', 'A campaign is paused: nothing more is dialed'],
  ['campaign.resumed', 'campaign', 'A paused campaign dials again'],
  ['campaign.canceled', 'campaign', 'A campaign is canceled: its leads not dialed yet never will be'],
  ['lead.called', 'campaign', "A campaign's call to a lead ended: its outcome, and what comes next for the lead"],
  ['lead.generated', 'campaign', 'A new lead is created'],
  ['appointment.scheduled', 'campaign', 'An appointment is booked'],
  ['sms.sent', 'sms', 'An SMS is delivered'],
  ['sms.received', 'sms', 'An SMS is received'],
  ['sms.failed', 'sms', 'SMS delivery fails'],
  ['sms.replied', 'sms', 'A recipient replies to an SMS'],
  [
    'webhook.failing',
    'operator',
    'A webhook has failed for half, then nine tenths, of the time after which it is switched off',
  ],
  [
    'webhook.disabled',
    'operator',
    'A webhook was switched off: its endpoint answered 410, or failed for WEBHOOK_DISABLE_AFTER',
  ],
  ['webhook.recovered', 'operator', 'A webhook announced as failing answered 2xx again'],
  ['delivery.exhausted', 'operator', "The last attempt of a delivery's schedule failed"],
] as const;

export type EventType = (typeof EVENT_TYPES)[number][0];
export const EVENT_NAMES: readonly EventType[] = EVENT_TYPES.map(([name]) => name);

export const isEventType = (value: unknown): value is EventType => EVENT_NAMES.includes(value as EventType);

/** The operator events: about the company's webhooks, never delivered to the webhook they concern. */
export const OPERATOR_EVENTS: readonly EventType[] = EVENT_TYPES.filter(([, category]) => category === 'operator').map(
  ([name]) => name,
);
export const isOperatorEvent = (type: string) => OPERATOR_EVENTS.includes(type as EventType);
