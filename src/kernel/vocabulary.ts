// The closed sets of the product, one list each: calls, messages, webhook
// deliveries, phone numbers, spam-protected numbers, campaigns and webhook
// form data presets. Services, route rows (and so the OpenAPI enums),
// row types and the provider adapter read them from here; the web page gets
// the ones it lists through web/src/vocabulary.generated.ts.

/** How far along each provider status is; the terminal ones are all 4. */
export const CALL_PROGRESS: Readonly<Record<string, number>> = {
  queued: 1,
  initiated: 1,
  ringing: 2,
  'in-progress': 3,
  completed: 4,
  busy: 4,
  'no-answer': 4,
  failed: 4,
  canceled: 4,
};

export const CALL_STATUSES = Object.keys(CALL_PROGRESS);
/** Statuses a call ends in. */
export const TERMINAL_CALL_STATUSES = CALL_STATUSES.filter((status) => CALL_PROGRESS[status] === 4);
export const SENTIMENTS = ['positive', 'neutral', 'negative'] as const;

/** How far along each provider status of a sent message is; the last word (delivered, failed, undelivered) is 3. */
export const SMS_PROGRESS: Readonly<Record<string, number>> = {
  accepted: 1,
  queued: 1,
  sending: 1,
  sent: 2,
  delivered: 3,
  failed: 3,
  undelivered: 3,
};
export const SMS_STATUSES = Object.keys(SMS_PROGRESS);
/** A stored message's status: a provider status when sent, `received` when it came in. */
export const MESSAGE_STATUSES = [...SMS_STATUSES, 'received'];
/** The longest SMS body, sent or received, in characters. */
export const SMS_BODY_MAX = 1600;

/** A webhook delivery's statuses: pending until it succeeds, fails after its last attempt, or is cancelled. */
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'cancelled'] as const;

/** How a number came on a company's do-not-call list: the API, the page, or its owner's SMS STOP. */
export const DO_NOT_CALL_SOURCES = ['api', 'page', 'sms_stop'] as const;
export type DoNotCallSource = (typeof DO_NOT_CALL_SOURCES)[number];
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** A phone number's verification status, its use, and its kind at the provider. */
export enum PhoneStatus {
  Verified = 'Verified',
  Unverified = 'Unverified',
}

export enum UseFor {
  ai = 'ai',
  dialer = 'dialer',
  both = 'both',
}

export const PHONE_TYPES = ['local', 'mobile', 'tollfree'] as const;
/** 10DLC registration, as a number's tendlc field answers it. */
export const TENDLC_ANSWERS = ['Yes', 'No'] as const;

/** A spam-protected number's kind and its status after the latest check. */
export enum SpamNumberType {
  AI = 'AI',
  House = 'House',
  Custom = 'Custom',
}

/** How many carriers must flag a spam-protected number for it to count as flagged. */
export const CARRIER_THRESHOLDS = [1, 2, 3] as const;

export enum SpamStatus {
  InProgress = 'In Progress',
  Flagged = 'Flagged',
  Clean = 'Clean',
}

export const CAMPAIGN_STATUSES = ['draft', 'scheduled', 'running', 'paused', 'completed', 'canceled'] as const;
/** How a campaign's attempt at a lead ended: its call's end, or `skipped` (its pre-dial decision said not to dial). */
export const DIAL_OUTCOMES = ['answered', 'no_answer', 'busy', 'voicemail', 'failed', 'skipped'] as const;
/** What the dialer does when a campaign's pre-dial endpoint gives no answer in time. */
export const PREDIAL_FALLBACKS = ['dial', 'skip'] as const;
/**
 * Where a campaign's lead stands: `pending` (not dialed yet, or waiting for its calling hours), `dialing` (a call
 * placed), `waiting` (a retry due), and the final ones: an outcome (`skipped`: the pre-dial decision said so),
 * `do_not_call` (listed when it was to be dialed),
 * `outside_hours` (its zones' calling hours never open together) and `canceled` (its campaign was).
 */
export const LEAD_STATES = [
  'pending',
  'dialing',
  'waiting',
  ...DIAL_OUTCOMES,
  'do_not_call',
  'outside_hours',
  'canceled',
] as const;
/** The lead states that are not final. */
export const OPEN_LEAD_STATES = ['pending', 'dialing', 'waiting'] as const;
/** What becomes of an import's good rows when some are bad: `reject` keeps none, `skip` keeps them. */
export const LEAD_ERROR_MODES = ['reject', 'skip'] as const;
/** Which way a call or a message went. */
export const DIRECTIONS = ['inbound', 'outbound'] as const;

/** A call's direction as the telephony provider writes it in its callbacks. */
export const PROVIDER_DIRECTIONS = ['inbound', 'outbound-api', 'outbound-dial'] as const;
/** An AI agent's availability. */
export const AGENT_STATUSES = ['online', 'offline'] as const;
/** What an agent's performance is watched by, and which way it crossed its threshold. */
export const PERFORMANCE_METRICS = ['answer_rate', 'average_sentiment'] as const;
export const CROSSINGS = ['below', 'above'] as const;
/** Why the service switched a webhook off. */
export const DISABLED_REASONS = ['gone', 'failing'] as const;
export type DisabledReason = (typeof DISABLED_REASONS)[number];
/** What made a webhook attempt: the schedule, or a person (a resend, a recovery). */
export const ATTEMPT_TRIGGERS = ['scheduled', 'manual'] as const;
/** Who said a turn of a call's transcript. */
/** Who a transcript turn is of: the agent, the caller, or a tool the agent called (its call and result). */
export const SPEAKERS = ['agent', 'caller', 'tool'] as const;
/** Which AI numbers local presence may use. */
export const LOCAL_PRESENCE = ['All', 'Unassigned'] as const;
/** The types of a company's post-call analysis fields. */
export const ANALYSIS_FIELD_TYPES = ['string', 'number', 'boolean', 'choice'] as const;
/** The webhook form data presets, and Custom for any other list of fields. */
export const LIST_SELECTION_NAMES = ['Basic', 'Contact', 'Full', 'All', 'Custom'] as const;
export type ListSelectionName = (typeof LIST_SELECTION_NAMES)[number];

/**
 * A closed set's value as a GraphQL enum value: the value itself where GraphQL
 * allows it, else with `_` for each character it does not (`in-progress` is
 * in_progress, `Last 7 Days` Last_7_Days, `call.ended` call_ended). REST and
 * webhooks carry the values; GraphQL the names.
 */
export const graphqlName = (value: string): string => value.replace(/[^_0-9A-Za-z]/g, '_');

/** An event's name as a GraphQL type name and an AsyncAPI message key: call.ended is CallEnded. */
export const typeNameOf = (event: string): string =>
  event
    .split(/[._]/)
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join('');
