import { EndpointCredentialsInputType, EndpointCredentialsType } from './credentials.types.js';
import { GraphQLJSONObject } from 'graphql-scalars';
import { Extensions, Field, InputType, Int, ObjectType } from 'type-graphql';
import { FILTER_SCHEMA_REF } from '../events/filter-schema.js';
import { PageType } from './pagination.types.js';
import {
  AttemptTrigger,
  DeliveryStatus,
  DisabledReason,
  EventCategory,
  ListSelection,
  SignatureScheme,
  WebhookEvent,
  WebhookOrdering,
} from './enums.js';
import { BOUNDS, inWords } from '../kernel/bounds.js';

@ObjectType('WebhookHeader', { simpleResolvers: true })
export class WebhookHeaderType {
  @Field() name!: string;
  @Field(() => String, { nullable: true, description: 'Null for a secret header: its value is never shown again' })
  value!: string | null;
  @Field() secret!: boolean;
}

@ObjectType('WebhookFilter', {
  simpleResolvers: true,
  description:
    'A payload filter: an event of this type is delivered only when its data passes the filter (docs/webhooks.md, Filters)',
})
export class WebhookFilterType {
  @Field(() => WebhookEvent) event!: string;
  @Field(() => GraphQLJSONObject, {
    description:
      'A comparison { path, eq | ne | in | nin | gt | gte | lt | lte | exists: value }, or { and: [...] }, ' +
      '{ or: [...] }, { not: ... }; at most 50 nodes, 5 deep',
  })
  @Extensions({ jsonSchema: { $ref: FILTER_SCHEMA_REF } })
  filter!: Record<string, unknown>;
}

@ObjectType('Webhook', { simpleResolvers: true })
export class WebhookType {
  @Field(() => Int, { description: 'The sequential id (the # column)' }) id!: number;
  @Field() title!: string;
  @Field() url!: string;
  @Field({ description: 'Always POST' }) method!: string;
  @Field(() => ListSelection) listSelection!: string;
  @Field(() => [String], { description: 'Contact fields every payload carries in data.contact' }) formData!: string[];
  @Field(() => [WebhookEvent]) events!: string[];
  @Field(() => [WebhookHeaderType], {
    description: 'Custom headers sent on every attempt; a secret one shows no value',
  })
  headers!: WebhookHeaderType[];
  @Field(() => [WebhookFilterType], {
    description:
      'Payload filters, at most one per subscribed event type; an event a filter turns away makes no delivery',
  })
  filters!: WebhookFilterType[];
  @Field() active!: boolean;
  @Field(() => DisabledReason, { nullable: true, description: 'Set when the service switched the webhook off' })
  disabledReason!: string | null;
  @Field(() => Int, { description: 'Attempts made' }) hits!: number;
  @Field(() => Date, { nullable: true }) lastHit!: Date | null;
  @Field(() => Int, {
    description:
      'Attempts in flight at once, now: adaptive, from WEBHOOK_ENDPOINT_CONCURRENCY (4) up to ' +
      'WEBHOOK_ENDPOINT_CONCURRENCY_MAX (64) while the endpoint answers 2xx fast, halved on a timeout, 429 ' +
      'or 5xx',
  })
  concurrency!: number;
  @Field(() => Int, { nullable: true, description: 'Deliveries per second at most (null: no limit)' }) rateLimit!:
    | number
    | null;
  @Field(() => Date, { nullable: true, description: "Nothing is sent before this time: the receiver's Retry-After" })
  pausedUntil!: Date | null;
  @Field(() => SignatureScheme) signatureScheme!: string;
  @Field(() => WebhookOrdering) ordering!: string;
  @Field(() => EndpointCredentialsType, {
    nullable: true,
    description: 'OAuth2 client and client TLS (never a secret)',
  })
  credentials!: EndpointCredentialsType | null;
  @Field(() => String, {
    nullable: true,
    description: 'v1a only: the Ed25519 public key (whpk_...) that verifies its signatures',
  })
  publicKey!: string | null;
  @Field() createdAt!: Date;
  @Field() updatedAt!: Date;
}

@ObjectType('WebhookPage', { simpleResolvers: true })
export class WebhookPageType extends PageType(WebhookType) {}

@ObjectType('CreatedWebhook', { simpleResolvers: true, description: 'A new webhook, and its secret shown this once' })
export class CreatedWebhookType {
  @Field(() => WebhookType, { description: 'The webhook as webhook(id) and the list serve it (one cache entry)' })
  webhook!: WebhookType;
  @Field() secret!: string;
}

@ObjectType('WebhookPublicKey', { simpleResolvers: true })
export class WebhookPublicKeyType {
  @Field({ description: 'whpk_ + base64 of the Ed25519 public key' }) publicKey!: string;
  @Field(() => String, { nullable: true, description: 'While a rotation is in grace: the previous key, still signing' })
  previousPublicKey!: string | null;
  @Field(() => Date, {
    nullable: true,
    description: 'While a rotation is in grace: when the previous key stops signing',
  })
  previousPublicKeyExpiresAt!: Date | null;
}

@ObjectType('WebhookSecret', { simpleResolvers: true })
export class WebhookSecretType {
  @Field() secret!: string;
  @Field(() => Date, {
    nullable: true,
    description: 'While a rotation is in grace: when the previous secret stops signing',
  })
  previousSecretExpiresAt!: Date | null;
}

@ObjectType('WebhookAttempt', { simpleResolvers: true })
export class WebhookAttemptType {
  @Field(() => Int) number!: number;
  @Field(() => AttemptTrigger) trigger!: string;
  @Field() attemptedAt!: Date;
  @Field(() => Int, { nullable: true, description: 'Null when no response arrived' }) statusCode!: number | null;
  @Field(() => Int, { nullable: true }) durationMs!: number | null;
  @Field(() => String, { nullable: true, description: 'The first 1 KiB of the response' }) responseBody!: string | null;
  @Field(() => String, { nullable: true }) error!: string | null;
  @Field(() => [String], { description: "The webhook's custom headers this attempt sent, by name" }) headers!: string[];
}

@ObjectType('WebhookDelivery', { simpleResolvers: true })
export class WebhookDeliveryType {
  @Field({ description: 'msg_ + a ULID; the x-webhook-id and webhook-id of every attempt' }) id!: string;
  @Field(() => Int) webhookId!: number;
  @Field(() => WebhookEvent) event!: string;
  @Field(() => DeliveryStatus) status!: string;
  @Field(() => Int) attemptCount!: number;
  @Field(() => Date, { nullable: true }) nextAttemptAt!: Date | null;
  @Field(() => Date, { nullable: true }) lastAttemptAt!: Date | null;
  @Field(() => Int, { nullable: true }) lastStatusCode!: number | null;
  @Field() createdAt!: Date;
  @Field(() => String, { nullable: true, description: 'The JSON text signed (one delivery only)' }) payload?:
    | string
    | null;
  @Field(() => [WebhookAttemptType], { nullable: true, description: 'Every attempt (one delivery only)' }) attempts?:
    | WebhookAttemptType[]
    | null;
}

@ObjectType('WebhookDeliveryPage', { simpleResolvers: true })
export class WebhookDeliveryPageType extends PageType(WebhookDeliveryType) {}

@ObjectType('StoredEvent', {
  simpleResolvers: true,
  description: 'An event kept in the event store (for WEBHOOK_RETENTION), as a delivery to the webhook would carry it',
})
export class StoredEventType {
  @Field({ description: 'evt_ + a ULID' }) id!: string;
  @Field(() => WebhookEvent) event!: string;
  @Field() occurredAt!: Date;
  @Field(() => GraphQLJSONObject, {
    description: "The event's data, with the contact fields the webhook's form data selects",
  })
  data!: Record<string, unknown>;
}

@ObjectType('StoredEventPage', { simpleResolvers: true })
export class StoredEventPageType extends PageType(StoredEventType) {}

@ObjectType('WebhookFilterTest', { simpleResolvers: true })
export class WebhookFilterTestType {
  @Field({ description: 'Whether the data passes the filter' }) matches!: boolean;
}

@ObjectType('WebhookEventType', { simpleResolvers: true })
export class WebhookEventTypeType {
  @Field(() => WebhookEvent) name!: string;
  @Field(() => EventCategory) category!: string;
  @Field() description!: string;
  @Field(() => GraphQLJSONObject, { description: 'JSON Schema (2020-12) of data' }) schema!: Record<string, unknown>;
  @Field(() => GraphQLJSONObject, { description: 'An example data' }) example!: Record<string, unknown>;
}

@ObjectType('WebhookListSelection', { simpleResolvers: true })
export class WebhookListSelectionType {
  @Field(() => ListSelection) name!: string;
  @Field(() => [String]) fields!: string[];
}

@ObjectType('WebhookFormFields', { simpleResolvers: true })
export class WebhookFormFieldsType {
  @Field(() => [String], { description: 'Field names; custom_fields.<key> selects one custom field' })
  fields!: string[];
  @Field(() => [WebhookListSelectionType]) listSelections!: WebhookListSelectionType[];
}

@ObjectType('WebhookRecovery', { simpleResolvers: true })
export class WebhookRecoveryType {
  @Field(() => Int, { description: 'Failed deliveries sent again' }) count!: number;
}

@ObjectType('WebhookReplayPreview', {
  simpleResolvers: true,
  description: 'What a replay of missing events would send',
})
export class WebhookReplayPreviewType {
  @Field(() => Int, {
    description:
      'Events of the subscribed types in the window that the webhook never got a delivery of, and that its filters pass',
  })
  count!: number;
  @Field(() => Int, { description: 'Missing events its filters turn away (not sent)' }) filtered!: number;
  @Field() since!: Date;
  @Field() until!: Date;
}

@ObjectType('WebhookReplay', { simpleResolvers: true })
export class WebhookReplayType {
  @Field(() => Int, { description: 'Deliveries made now, in the order the events happened' }) count!: number;
  @Field(() => Int, { description: 'Missing events left for another run (one run sends at most 10,000)' })
  remaining!: number;
}

@InputType()
export class WebhookHeaderInput {
  @Field({
    description:
      'An HTTP header name; not one Switchboard sets (webhook-*, x-webhook-*, content-*, host, user-agent, hop-by-hop)',
  })
  name!: string;
  @Field(() => String, {
    nullable: true,
    description: `${inWords(BOUNDS.webhook.headerValue)}; for a secret header, leave out to keep its value`,
  })
  value?: string | null;
  @Field(() => Boolean, { nullable: true, description: 'Stored encrypted and never shown again' }) secret?:
    | boolean
    | null;
}

@InputType()
export class WebhookFilterInput {
  @Field(() => WebhookEvent, { description: 'An event type the webhook subscribes to; one filter per event type' })
  event!: string;
  @Field(() => GraphQLJSONObject, {
    description: "The filter (docs/webhooks.md, Filters), checked against the event type's data schema",
  })
  filter!: Record<string, unknown>;
}

@InputType({ description: 'A change to a webhook: a field left out keeps its value' })
export class WebhookInput {
  @Field(() => String, { nullable: true }) title?: string | null;
  @Field(() => String, { nullable: true }) url?: string | null;
  @Field(() => String, { nullable: true, description: 'Only POST' }) method?: string | null;
  @Field(() => ListSelection, { nullable: true }) listSelection?: string | null;
  @Field(() => [String], { nullable: true }) formData?: string[] | null;
  @Field(() => [WebhookEvent], { nullable: true }) events?: string[] | null;
  @Field(() => Boolean, { nullable: true }) active?: boolean | null;
  @Field(() => Int, {
    nullable: true,
    description: `Deliveries per second at most, ${inWords(BOUNDS.webhook.rateLimit)}; null removes the limit`,
  })
  rateLimit?: number | null;
  @Field(() => [WebhookHeaderInput], {
    nullable: true,
    description: `${inWords(BOUNDS.webhook.headers)}; replaces every custom header (left out: kept)`,
  })
  headers?: WebhookHeaderInput[] | null;
  @Field(() => [WebhookFilterInput], {
    nullable: true,
    description: 'Replaces every payload filter (left out: kept, but for events no longer subscribed)',
  })
  filters?: WebhookFilterInput[] | null;
  @Field(() => SignatureScheme, {
    nullable: true,
    description: 'v1 (HMAC-SHA256, the default) or v1a (Ed25519: a key pair is made, its public key shown)',
  })
  signatureScheme?: string | null;
  @Field(() => WebhookOrdering, {
    nullable: true,
    description:
      'subject: deliveries about one subject are attempted one at a time in order, a failing one holding back only ' +
      'its subject; none (the default): as they come',
  })
  ordering?: string | null;
  @Field(() => EndpointCredentialsInputType, {
    nullable: true,
    description:
      'OAuth2 client credentials (http and https) and client TLS (https, amqps, rediss, mqtts, nats); ' +
      'null removes them, left out keeps them',
  })
  credentials?: EndpointCredentialsInputType | null;
}

@InputType({ description: 'A new webhook: title, url and events are required' })
export class CreateWebhookInput extends WebhookInput {
  @Field(() => String, { description: inWords(BOUNDS.webhook.title) }) override title!: string;
  @Field(() => String, {
    description:
      'http(s), amqp(s), nats, redis(s) or mqtt(s): the scheme names the destination (docs/webhooks.md, Destinations); ' +
      inWords(BOUNDS.webhook.url).toLowerCase(),
  })
  override url!: string;
  @Field(() => [WebhookEvent], { description: 'At least one' }) override events!: string[];
}

@ObjectType('EventPageInfo', { simpleResolvers: true })
export class EventPageInfoType {
  @Field({ description: 'More events follow now; poll again with endCursor either way' }) hasNextPage!: boolean;
  @Field({
    description: 'Pass as after for the events that follow this page (the same cursor back when the page is empty)',
  })
  endCursor!: string;
}

@ObjectType('EventConnection', {
  simpleResolvers: true,
  description: 'Events of the company, oldest first, for consumers who pull (GET /api/events)',
})
export class EventConnectionType {
  @Field(() => [StoredEventType], {
    description: 'Each event with the data a delivery carries (every contact field, as the All selection)',
  })
  nodes!: StoredEventType[];
  @Field(() => EventPageInfoType) pageInfo!: EventPageInfoType;
}
