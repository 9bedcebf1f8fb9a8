import { INT32 } from './messages.js';
import { LIMITS } from './validation.js';
import { SMS_BODY_MAX } from './vocabulary.js';

// The bound of every input field, as data: the services check each value
// against its bound here (Rules.maxChars and the like), with their other
// rules, and the OpenAPI document states it, through the REST rows, as the
// JSON Schema keyword of the same name. A field with no bound of its own is
// held by the REST layer to its type's default (DEFAULT_BOUNDS), stated
// alike. A limit is written once, here; nothing restates it in prose.

/** JSON Schema's own names, so a bound is its keyword in the document. */
export interface Bound {
  /** In characters (code points), as Rules.maxChars counts them. */
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  maxItems?: number;
  /** For objects of free keys: how many keys at most. */
  maxProperties?: number;
  /** For arrays: the bound of each item. */
  items?: Bound;
}

const text = (maxLength: number) => ({ maxLength });
const NAME = text(255);

/** The bounds every field without one of its own is held to. */
export const DEFAULT_BOUNDS = {
  /** Any string a request gives: the longest field the product stores (an SMS, a summary) fits many times over. */
  text: text(10_000),
  integer: { minimum: INT32.min, maximum: INT32.max },
  array: { maxItems: LIMITS.arrayItems },
  /** An id in any of its forms (ids.ts). */
  id: text(200),
} as const satisfies Record<string, Bound>;

/** A campaign's bounds that are no field's. */
export const CAMPAIGN_LIMITS = {
  /** Leads a campaign holds at most, whatever the number of imports. */
  leadsPerCampaign: 100_000,
  /** The bytes of one CSV upload. */
  csvBytes: 16 * 1024 * 1024,
  /** A scheduled start: from a few minutes past (a clock's drift) to this many days ahead. */
  scheduleMinutesBack: 5,
  scheduleDaysAhead: 90,
} as const;

/** Page numbers and sizes: at least 1; a size above its list's maximum is clamped to it (not refused). */
export const PAGE_BOUND: Bound = { minimum: 1, maximum: INT32.max };

export const BOUNDS = {
  role: { title: NAME },
  agent: { name: NAME },
  campaign: {
    name: NAME,
    leadSource: text(64),
    /** Leads one JSON request gives. */
    leads: { maxItems: 1000 },
    /** One CSV upload, in characters (its bytes are held to CAMPAIGN_LIMITS.csvBytes before it is read). */
    csv: text(16 * 1024 * 1024),
    leadKey: NAME,
    timeZone: text(64),
    variables: { maxProperties: 50 },
    variableValue: text(1000),
    /** How a campaign dials (services/campaign-dialing.ts). */
    concurrency: { minimum: 1, maximum: 200 },
    ringSeconds: { minimum: 15, maximum: 120 },
    maxAttempts: { minimum: 1, maximum: 10 },
    callingDays: { maxItems: 7, items: { minimum: 1, maximum: 7 } },
    retryMinutes: { maxItems: 10, items: { minimum: 1, maximum: 10_080 } },
    hours: text(5),
    startAt: text(40),
  },
  pipeline: { name: NAME, stageName: NAME, crmLocationId: NAME },
  workflow: { name: NAME, description: text(2000) },
  phoneNumber: { title: NAME },
  spamNumber: { pnumber: text(20) },
  doNotCall: { phoneNumbers: { maxItems: 1000, items: text(20) }, note: text(255) },
  sms: { body: text(SMS_BODY_MAX) },
  transcript: { text: text(2000) },
  contact: {
    email: NAME,
    firstName: NAME,
    lastName: NAME,
    address: NAME,
    city: NAME,
    state: NAME,
    companyName: NAME,
    zip: text(32),
    country: text(64),
    tags: { maxItems: 50, items: text(64) },
    customFields: { maxItems: 50 },
    customValue: text(1000),
  },
  auth: { email: NAME, password: text(1024) },
  telco: { authToken: text(128), messagingServiceSid: text(64) },
  analysis: {
    summary: text(5000),
    disposition: text(64),
    recordingUrl: text(2000),
    fields: { maxItems: 50 },
    fieldName: text(64),
    fieldDescription: NAME,
    choices: { maxItems: 50, items: text(100) },
    fieldValue: text(1000),
  },
  webhook: {
    title: NAME,
    url: text(2048),
    rateLimit: { minimum: 1, maximum: 1000 },
    headers: { maxItems: 10 },
    headerName: text(64),
    headerValue: text(1024),
  },
  decisionEndpoint: {
    url: text(2048),
    deadlineMs: { minimum: 100, maximum: 5000 },
  },
  agentTool: {
    description: text(1000),
    url: text(2048),
    deadlineMs: { minimum: 100, maximum: 10_000 },
    fallbackMessage: text(1000),
  },
  search: text(LIMITS.searchChars),
} as const satisfies Record<string, Bound | Record<string, Bound>>;

/** A bound in words, for a GraphQL description ("At most 255 characters"), so the schema's prose follows the bound. */
export function inWords(bound: Bound): string {
  const parts = [
    bound.maxLength !== undefined ? `at most ${bound.maxLength} characters` : '',
    bound.maxItems !== undefined
      ? `at most ${bound.maxItems}${bound.items?.maxLength !== undefined ? `, each at most ${bound.items.maxLength} characters` : ''}`
      : '',
    bound.minimum !== undefined && bound.maximum !== undefined ? `${bound.minimum} to ${bound.maximum}` : '',
  ]
    .filter(Boolean)
    .join('; ');
  return parts[0].toUpperCase() + parts.slice(1);
}

/**
 * The JSON Schema of an object of free keys whose values are scalars (a
 * contact's custom fields, a call's analysis), with the bounds its service
 * checks: stated in the REST document for what is sent and what is answered.
 */
export const scalarValues = (maxLength: number, keyPattern?: RegExp): Readonly<Record<string, unknown>> => ({
  type: 'object',
  ...(keyPattern ? { propertyNames: { pattern: keyPattern.source } } : {}),
  additionalProperties: { type: ['string', 'number', 'boolean', 'null'], maxLength },
});
