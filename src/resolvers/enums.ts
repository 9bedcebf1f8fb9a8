import { registerEnumType } from 'type-graphql';
import { EVENT_NAMES, EVENT_TYPES } from '../events/catalog.js';
import { DATE_RANGES } from '../kernel/time/date-range.js';
import { FALLBACK_REASONS } from '../kernel/call-decision.js';
import { STATS_BUCKETS } from '../kernel/attempt-outcome.js';
import {
  AGENT_STATUSES,
  ANALYSIS_FIELD_TYPES,
  ATTEMPT_TRIGGERS,
  CALL_STATUSES,
  CROSSINGS,
  DISABLED_REASONS,
  LOCAL_PRESENCE,
  PERFORMANCE_METRICS,
  SPEAKERS,
  CAMPAIGN_STATUSES,
  DELIVERY_STATUSES,
  DIRECTIONS,
  graphqlName,
  DIAL_OUTCOMES,
  PREDIAL_FALLBACKS,
  LEAD_ERROR_MODES,
  LEAD_STATES,
  LIST_SELECTION_NAMES,
  MESSAGE_STATUSES,
  PHONE_TYPES,
  PhoneStatus,
  SENTIMENTS,
  SpamNumberType,
  SpamStatus,
  TENDLC_ANSWERS,
  UseFor,
} from '../kernel/vocabulary.js';

// The closed sets of src/kernel/vocabulary.ts (and the event catalog, the dashboard's
// date ranges) as GraphQL enums, registered once. Each enum value stands for
// the value REST and webhooks carry (`in_progress` for `in-progress`); the
// services see the values, the REST table maps both ways.

/** Registers a closed set under `name`; its members, GraphQL name to value, for a field's type. */
function closedSet(name: string, values: readonly string[], description: string): Record<string, string> {
  const members = Object.fromEntries(values.map((value) => [graphqlName(value), value]));
  if (Object.keys(members).length !== values.length) throw new Error(`Enum ${name}: two values share a GraphQL name`);
  registerEnumType(members, { name, description });
  return members;
}

export const CallStatus = closedSet(
  'CallStatus',
  CALL_STATUSES,
  "A call's status at the provider; completed, busy, no_answer, failed and canceled are final",
);
export const Sentiment = closedSet('Sentiment', SENTIMENTS, "The caller's sentiment, as the call's analysis found it");
export const Direction = closedSet('Direction', DIRECTIONS, 'Which way a call or a message went');
export const MessageStatus = closedSet(
  'MessageStatus',
  MESSAGE_STATUSES,
  "A message's status: the provider's while it is sent, received when it came in",
);
export const CampaignStatus = closedSet('CampaignStatus', CAMPAIGN_STATUSES, "A campaign's stage");
export const DialOutcome = closedSet('DialOutcome', DIAL_OUTCOMES, "How a campaign's call to a lead ended");
export const LeadState = closedSet('LeadState', LEAD_STATES, "Where a campaign's lead stands in its dialing");
export const PredialAction = closedSet(
  'PredialAction',
  ['dial', 'skip'],
  'Whether the dialer dials a lead, or skips it',
);
export const PredialFallback = closedSet(
  'PredialFallback',
  PREDIAL_FALLBACKS,
  "What the dialer does when a campaign's pre-dial endpoint gives no answer in time: dial the lead, or skip it",
);
export const LeadErrorMode = closedSet(
  'LeadErrorMode',
  LEAD_ERROR_MODES,
  'When some rows of an import are bad: reject keeps none of it, skip keeps the good rows',
);
export const PhoneNumberStatus = closedSet(
  'PhoneNumberStatus',
  Object.values(PhoneStatus),
  "A phone number's verification",
);
export const NumberUse = closedSet(
  'NumberUse',
  Object.values(UseFor),
  'What a phone number is used for: AI agents, the dialer or both',
);
export const PhoneType = closedSet('PhoneType', PHONE_TYPES, "A number's kind at the provider");
export const TendlcAnswer = closedSet('TendlcAnswer', TENDLC_ANSWERS, 'Whether a number is registered for 10DLC');
export const SpamCheckStatus = closedSet(
  'SpamCheckStatus',
  Object.values(SpamStatus),
  "A spam-protected number's status after its latest check",
);
export const SpamNumberKind = closedSet(
  'SpamNumberKind',
  Object.values(SpamNumberType),
  'What a spam-protected number is used for',
);
export const DeliveryStatus = closedSet(
  'DeliveryStatus',
  DELIVERY_STATUSES,
  "A webhook delivery's status: pending until it succeeds, failed after its last attempt, or cancelled",
);
export const WebhookOrdering = closedSet(
  'WebhookOrdering',
  ['none', 'subject'],
  "subject: deliveries about one subject (a call, campaign, agent or contact) one at a time, in their events' order",
);
export const SignatureScheme = closedSet(
  'SignatureScheme',
  ['v1', 'v1a'],
  "What a delivery's webhook-signature carries: v1 HMAC-SHA256 with the secret, v1a Ed25519 (Standard Webhooks)",
);
export const ListSelection = closedSet(
  'ListSelection',
  LIST_SELECTION_NAMES,
  "A webhook's form data preset, Custom for any other list of fields",
);
export const WebhookEvent = closedSet(
  'WebhookEvent',
  EVENT_NAMES,
  'An event type, as webhooks name it with its dot (call_ended is call.ended)',
);
export const EventCategory = closedSet(
  'EventCategory',
  [...new Set(EVENT_TYPES.map(([, category]) => category))],
  'The area an event type belongs to',
);
export const DateRange = closedSet('DateRange', DATE_RANGES, "A range of the AI dashboard, in the company's time zone");
export const AgentStatus = closedSet('AgentStatus', AGENT_STATUSES, "An AI agent's availability");
export const PerformanceMetric = closedSet(
  'PerformanceMetric',
  PERFORMANCE_METRICS,
  "What an agent's performance is watched by",
);
export const MetricCrossing = closedSet('MetricCrossing', CROSSINGS, 'Which way a metric crossed its threshold');
export const DisabledReason = closedSet(
  'DisabledReason',
  DISABLED_REASONS,
  'Why the service switched a webhook off: its endpoint answered 410 (gone), or failed for WEBHOOK_DISABLE_AFTER',
);
export const AttemptTrigger = closedSet(
  'AttemptTrigger',
  ATTEMPT_TRIGGERS,
  'What made a webhook attempt: its schedule, or a person (a resend, a recovery)',
);
export const Speaker = closedSet('Speaker', SPEAKERS, "Who said a turn of a call's transcript");
export const LocalPresence = closedSet('LocalPresence', LOCAL_PRESENCE, 'Which AI numbers local presence may use');
export const AnalysisFieldType = closedSet(
  'AnalysisFieldType',
  ANALYSIS_FIELD_TYPES,
  "The type of a company's post-call analysis field",
);

/**
 * The smallest registered enum that holds every value of `values` (an event field's JSON Schema enum: a call's
 * final status is a CallStatus), if there is one.
 */
export function closedSetOf(values: readonly unknown[]): Record<string, string> | undefined {
  const wanted = values.filter((value) => value !== null);
  if (!wanted.every((value) => typeof value === 'string')) return undefined;
  const sets = [
    Direction,
    Sentiment,
    AgentStatus,
    PerformanceMetric,
    MetricCrossing,
    DisabledReason,
    CallStatus,
    MessageStatus,
    DecisionAction,
    DecidedBy,
    DecisionFallbackReason,
    DialOutcome,
  ];
  return sets
    .filter((set) => wanted.every((value) => Object.values(set).includes(value as string)))
    .sort((a, b) => Object.keys(a).length - Object.keys(b).length)[0];
}
export const DecisionAction = closedSet(
  'DecisionAction',
  ['answer', 'forward', 'reject'],
  'What an inbound call is routed to: an AI agent answers, a number it is forwarded to, or rejected',
);
export const DecidedBy = closedSet(
  'DecidedBy',
  ['endpoint', 'fallback', 'number'],
  "Who routed an inbound call: the decision endpoint's answer, its fallback, or the number's own agent (no endpoint)",
);
export const DecisionFallbackReason = closedSet(
  'DecisionFallbackReason',
  FALLBACK_REASONS,
  'Why the fallback decided: no answer within the deadline (timeout), a status other than 2xx (error), an answer ' +
    "not taken (invalid), a host not reached (unreachable), or the endpoint's open circuit breaker (breaker_open)",
);
export const BreakerState = closedSet(
  'BreakerState',
  ['closed', 'open', 'half_open'],
  "A decision endpoint's circuit breaker: closed asks it, open gives the fallback at once, half_open lets one call probe it",
);
export const StatsBucket = closedSet(
  'StatsBucket',
  STATS_BUCKETS,
  "A bucket of an endpoint's record over time: a minute, an hour or a day of the company's zone",
);
export const DoNotCallSource = closedSet(
  'DoNotCallSource',
  ['api', 'page'],
  'Who adds numbers to the do-not-call list: an integration (api) or a person on the page (page)',
);
