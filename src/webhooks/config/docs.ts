import { EVENT_DOCS } from '../../events/catalog.js';
import { FORM_FIELDS, LIST_SELECTIONS } from './payload.js';
import { HEADER_VALUE_MAX, HEADERS_MAX } from './headers.js';
import { FILTER_DEPTH_MAX, FILTER_NODES_MAX } from './filters.js';
import { LISTEN_DOC } from '../tools/listen.js';
import { EVENT_FEED_DOC } from '../tools/event-feed.service.js';
import { STATS_DOC } from '../tools/stats.service.js';
import { BROKER_DOC } from './broker-docs.js';

// docs/webhooks.md, written by `npm run generate` from the same sources the
// service uses (the event catalog, the form fields), so it cannot drift.

/** The shape of a delivery's body, as the guide shows it. */
const BODY_SHAPE = {
  event: 'call.ended',
  timestamp: '2026-11-18T17:03:08.412Z',
  webhook_id: '12',
  data: { '...': 'the event data, and contact' },
  metadata: { version: '1.0', signature: 'sha256=<hex>' },
};
const COMPARISONS =
  'the field is greater / at least / less / at most `v`: a number, or an ISO 8601 date-time for a date-time field';

export const WEBHOOKS_DOC_FILE = 'docs/webhooks.md';

/** The test vector, computed independently with openssl; test/webhooks.test.ts checks the code against it. */
export const TEST_VECTOR = {
  secret: 'whsec_AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA=',
  payload:
    '{"event":"agent.created","timestamp":"2026-11-18T17:00:00.000Z","webhook_id":"1",' +
    '"data":{"agent_id":"7","name":"Ava","active":true,"online":false,"contact":null},"metadata":{"version":"1.0"}}',
  signature: 'sha256=279d6823fda9882cdc57f15e1504d4e1a70a3de1481ea95ee66dcd945ca76d77',
  webhookId: 'msg_01JD0000000000000000000000',
  webhookTimestamp: 1763485200,
  standardSignature: 'v1,WMTN/GjMrriVXDg2LTX6SCDXMOddvXqHfUO7rDl31MA=',
};

const fence = (lang: string, text: string) => `\`\`\`${lang}\n${text}\n\`\`\``;

export function webhooksDoc(): string {
  const v = TEST_VECTOR;
  const signedBody = `${v.payload.slice(0, -2)},"signature":"${v.signature}"}}`;
  const events = EVENT_DOCS.map((doc) =>
    [
      `### \`${doc.name}\``,
      '',
      `${doc.description}. Category: ${doc.category}.`,
      '',
      '| field | type | required | description |',
      '|---|---|---|---|',
      ...Object.entries(doc.schema.properties as Record<string, { type: string | string[]; description?: string }>).map(
        ([name, schema]) =>
          `| \`${name}\` | ${[schema.type].flat().join(' or ')} | ` +
          `${(doc.schema.required as string[]).includes(name) ? 'yes' : 'no'} | ${schema.description ?? ''} |`,
      ),
      '',
      'Example `data`:',
      '',
      fence('json', JSON.stringify(doc.example, null, 2)),
      '',
    ].join('\n'),
  );

  return `# Webhooks

<!-- Written by \`npm run generate\` from src/webhooks/config/docs.ts and the event catalog (src/events/catalog.ts); edit those, not this file. -->

Switchboard sends an HTTP POST to each active webhook of a company when one of
its subscribed events happens. Webhooks are managed under Setup > Webhooks, by
GraphQL (\`webhooks\`, \`createWebhook\`, ...) and by REST (\`/api/webhooks\`,
see the OpenAPI document at \`/api/docs\`).

The same document (\`/api/openapi.json\`, OpenAPI 3.1) describes every
delivery in its \`webhooks\` section: per event, the envelope with the event's
\`data\` schema (\`CallEndedEvent\`, \`CallEndedData\`, ...), the signature
headers and what each answer means. \`openapi-typescript\` and similar
generators make typed receiver code from it.

## Delivery

- **At least once.** The delivery is written in the same database transaction
  as the change that caused the event: a change that is rolled back sends
  nothing, and a crash loses nothing. A receiver sees a delivery twice only
  when the result of an attempt was lost: it answered after the timeout, or
  the worker sending it died or stalled mid-request. De-duplicate on the
  \`webhook-id\` header, which is the same on every attempt of a delivery. A
  2xx answered in time is never followed by another copy.
- **Success** is any 2xx answer within 10 seconds. Anything else (another
  status, a redirect, which is not followed, a timeout, a refused connection)
  is a failure.
- **Retries:** attempt 1 goes out at once; attempt 2 is due 30 seconds after
  attempt 1 failed, then 2 minutes, 8 minutes and 32 minutes. After the fifth
  failure the delivery is \`failed\`. Every attempt is in the delivery log with
  its time, status code, duration, the first 1 KiB of the answer and the error.
- **410 Gone** switches the webhook off (\`disabled_reason: gone\`); a webhook
  whose every delivery has failed for 5 days is switched off as \`failing\`.
  Setting it active again clears the reason.
- **Resend and recover:** \`POST /api/webhooks/deliveries/{id}/resend\` sends a
  finished delivery again with a fresh schedule of five attempts (same id,
  attempt numbers continue); \`POST /api/webhooks/{id}/recover\` does so for every
  failed delivery created in a window of up to 14 days. A delivery made more than
  a day before is attempted within two seconds, a newer one at once.
- **Replay missing:** every event is kept for 30 days, delivered or not.
  \`GET /api/webhooks/{id}/missing-events?since=…&until=…\` (GraphQL
  \`webhookReplayPreview\`) counts the events of the webhook's subscribed
  types in that window (at most 30 days) that it never got a delivery of,
  because it was inactive or not yet subscribed to their type, and how many of
  those its filters turn away; \`POST /api/webhooks/{id}/replay-missing\`
  (\`replayMissingWebhookEvents\`, the "Replay missing events" panel) sends
  the rest as new deliveries, oldest first, each with the event's own
  \`timestamp\`. Running it again sends nothing new; one run sends at most
  10,000 (\`remaining\` says how many are left); an inactive webhook is 409.
- **By subject:** \`GET /api/webhooks/deliveries?call_id=5012\` (or
  \`campaign_id\`, \`contact_id\`, \`agent_id\`; GraphQL
  \`webhookDeliveriesBySubject\`; the "Find deliveries" panel of Setup >
  Webhooks) lists the deliveries about one call, campaign, contact or agent
  across every webhook of the company, newest first, each resendable. Test
  sends concern nothing and are not listed.
- **Concurrency adapts to your endpoint.** A webhook starts with 4 attempts
  in flight at most. While your endpoint uses them all and answers 2xx within
  a second, it gets one more at a time, up to 64; a timeout, a refused
  connection, a 429 or a 5xx halves it (never below 1). The current value is
  the webhook's \`concurrency\`. A slow endpoint delays only its own
  deliveries, never another webhook's or another company's.
- **Retry-After** on a 429 or 503 (seconds or an HTTP date, up to an hour)
  pauses the webhook until then (\`paused_until\`): nothing is sent to it
  before. Retries are never earlier than their schedule.
- **Rate limit:** set \`rate_limit\` (1 to 1,000 deliveries per second) on a
  webhook whose receiver must not be sent more; bursts up to one second's
  worth. \`null\` removes it.
- Webhook URLs must be http(s) without credentials, and may not point to
  private, loopback, link-local or other internal addresses (checked when the
  webhook is saved and again when each attempt connects). A service in
  development allows loopback receivers (127.0.0.0/8, ::1, localhost) for a
  try-out on one machine; \`WEBHOOK_ALLOW_PRIVATE=true\` allows every private
  address.

### Ordering per subject

Deliveries go out concurrently, so two about one call can arrive out of order.
A webhook with \`ordering: subject\` (the page's "In order per subject") gets
the deliveries about one subject one at a time, in the order of their events:
the subject is what the event is first about (its call, else its campaign,
else its agent, else its contact). A delivery waits while an older one of its
subject is in flight or waiting for a retry; a failing one holds back only its
subject, until it succeeds or its schedule ends. Other subjects, and other
webhooks, go on. The cost: one subject's deliveries move at one round trip
each, and a claim looks past the waiting ones. Test sends, resends, recoveries
and replays are not ordered.

## The request

Headers of every attempt:

| header | value |
|---|---|
| \`content-type\` | \`application/json\` |
| \`user-agent\` | \`Switchboard-Webhooks/<version>\` |
| \`x-webhook-id\`, \`webhook-id\` | the delivery id, \`msg_\` + a ULID; the same on every attempt |
| \`x-webhook-event\` | the event name |
| \`x-webhook-attempt\` | 1 to 5, continuing on manual re-sends |
| \`x-webhook-signature\` | \`sha256=<hex>\`, the same value as \`metadata.signature\` |
| \`webhook-timestamp\` | Unix seconds of this attempt |
| \`webhook-signature\` | \`v1,<base64>\`; two, space-separated, while a rotated secret is in its 24-hour grace |
| \`traceparent\` | only when the service traces (OpenTelemetry): the W3C trace context of this attempt, in the trace of the API request that caused the event |

**Custom headers.** A webhook may add up to ${HEADERS_MAX} headers of its own to
every attempt (\`headers\`: name, value, secret), for a receiver behind a
gateway that wants a static key. A name is an HTTP header name, not one of the
above nor \`host\`, \`content-*\`, \`proxy-*\`, \`tracestate\` or a hop-by-hop header; a value
is at most ${HEADER_VALUE_MAX} characters without line breaks. A value marked
\`secret\` is stored encrypted and never shown again (save the header again
without a value to keep it). The delivery log names the custom headers each
attempt sent, never their values. They are not signed: verify the signature
as below.

The body:

${fence('json', JSON.stringify(BODY_SHAPE, null, 2))}

\`timestamp\` is when the event happened (ISO 8601 UTC, milliseconds);
\`webhook_id\` is the webhook's id; \`metadata\` is the last key and \`signature\`
the last key of \`metadata\`. \`data.contact\` holds the contact fields the
webhook selected (its form data), or null when the event concerns no contact.

## Verifying a delivery

The signing secret (\`whsec_\` + base64 of 32 random bytes) is shown when the
webhook is created, and afterwards by \`GET /api/webhooks/{id}/secret\`.
Verify against the raw body, before parsing it.

**The payload signature** (\`x-webhook-signature\`, \`metadata.signature\`):

1. Take the exact text \`,"signature":"<x-webhook-signature value>"\` out of the
   raw body (it stands just before the final \`}}\`).
2. Compute HMAC-SHA256 of what is left, with the whole secret string (including
   \`whsec_\`, as UTF-8 bytes) as the key; hex-encode it and prefix \`sha256=\`.
3. Compare with the header in constant time.

**The Standard Webhooks signature** (\`webhook-signature\`): HMAC-SHA256 of
\`<webhook-id>.<webhook-timestamp>.<raw body>\` with the base64-decoded part of
the secret after \`whsec_\` as the key, base64-encoded, prefixed \`v1,\`. Accept
the delivery when any of the space-separated signatures matches, and reject
timestamps more than five minutes away from now (replays).

In TypeScript (Node.js, no dependency):

${fence(
  'ts',
  `import { createHmac, timingSafeEqual } from 'node:crypto';

const equal = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

export function verifySwitchboardWebhook(secret: string, rawBody: string, headers: Record<string, string | undefined>): boolean {
  const header = headers['x-webhook-signature'] ?? '';
  const marker = \`,"signature":"\${header}"}}\`;
  if (!header || !rawBody.endsWith(marker)) return false;
  const unsigned = \`\${rawBody.slice(0, -marker.length)}}}\`;
  if (!equal(\`sha256=\${createHmac('sha256', secret).update(unsigned).digest('hex')}\`, header)) return false;

  const [id, timestamp, signatures] = [headers['webhook-id'], headers['webhook-timestamp'], headers['webhook-signature']];
  if (!id || !timestamp || !signatures || Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = \`v1,\${createHmac('sha256', key).update(\`\${id}.\${timestamp}.\${rawBody}\`).digest('base64')}\`;
  return signatures.split(' ').some((candidate) => equal(expected, candidate));
}`,
)}

A runnable receiver that does this: \`WEBHOOK_SECRETS=whsec_... npm run receiver\`
(\`examples/receiver.mjs\`, port 4000 or \`RECEIVER_PORT\`; several secrets
separated by commas, such as the old and the new one during a rotation).

**With a library.** The Standard Webhooks headers verify unchanged with the
\`standardwebhooks\` package (or \`svix\`):

${fence(
  'ts',
  `import { Webhook } from 'standardwebhooks';

const payload = new Webhook(process.env.WEBHOOK_SECRET!).verify(rawBody, headers); // throws when the signature or timestamp is wrong`,
)}

### Ed25519 signatures (v1a)

A webhook created or edited with \`signature_scheme: v1a\` (the page's
Signatures choice) signs with Standard Webhooks' asymmetric scheme: Switchboard
keeps an Ed25519 signing key, and the receiver gets only its public key
(\`whpk_\` + base64 of its 32 bytes: \`public_key\` of the webhook, and
\`GET /api/webhooks/{id}/public-key\`). A leaked public key lets nobody sign.
\`webhook-signature\` then carries \`v1a,\` + the base64 Ed25519 signature of
\`<webhook-id>.<webhook-timestamp>.<raw body>\`; during a rotation's grace, one
per key (the previous key is shown with when it stops signing). The body's
\`metadata.signature\` stays the specification's \`sha256=\` HMAC with the secret.

${fence(
  'ts',
  `import { createPublicKey, verify } from 'node:crypto';

export function verifyEd25519(publicKey: string, rawBody: string, headers: Record<string, string | undefined>): boolean {
  const [id, timestamp, signatures] = [headers['webhook-id'], headers['webhook-timestamp'], headers['webhook-signature']];
  if (!id || !timestamp || !signatures || Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  const raw = Buffer.from(publicKey.slice('whpk_'.length), 'base64');
  const spki = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), raw]); // RFC 8410
  const key = createPublicKey({ key: spki, format: 'der', type: 'spki' });
  const signed = Buffer.from(\`\${id}.\${timestamp}.\${rawBody}\`);
  return signatures.split(' ').some((entry) => {
    const [version, signature] = entry.split(',');
    return version === 'v1a' && verify(null, signed, key, Buffer.from(signature, 'base64'));
  });
}`,
)}

### Test vector

| | |
|---|---|
| secret | \`${v.secret}\` |
| payload without signature | \`${v.payload}\` |
| signature | \`${v.signature}\` |
| body sent | \`${signedBody}\` |
| \`webhook-id\` / \`webhook-timestamp\` | \`${v.webhookId}\` / \`${v.webhookTimestamp}\` |
| \`webhook-signature\` | \`${v.standardSignature}\` |

### Credentials beside the signature

A webhook behind a gateway can be given \`credentials\`: OAuth2 client credentials (a Bearer token fetched and kept,
fetched again once on a 401) and client TLS (a certificate and key for mutual TLS, a CA to trust). The signature is
sent as well; [call-routing.md](call-routing.md#credentials-beside-the-signature) describes both. Client TLS also
reaches a broker over TLS (\`amqps\`, \`rediss\`, \`mqtts\`, and \`nats\` where the server requires TLS): its CA is
trusted and its certificate presented; OAuth2 is for http and https alone.

## Filters

A webhook may filter each event type it subscribes to on the event's
\`data\` (\`filters\`: a list of \`{ event, filter }\`, one per event type;
GraphQL \`WebhookInput.filters\`, the Filters part of the Setup > Webhooks
form). An event its filter turns away makes no delivery: it is counted in
\`webhook_events_filtered_total\` (by event) and listed as filtered
(\`GET /api/webhooks/{id}/filtered-events\`, GraphQL
\`webhookFilteredEvents\`, the Filtered panel of the webhook's page) for the
retention window. For inbound calls longer than a minute with a negative
sentiment:

${fence(
  'json',
  JSON.stringify(
    {
      event: 'call.ended',
      filter: {
        and: [
          { path: 'call_direction', eq: 'inbound' },
          { path: 'call_duration', gt: 60 },
          { path: 'sentiment', eq: 'negative' },
        ],
      },
    },
    null,
    2,
  ),
)}

A filter is a comparison or a group:

| node | matches when |
|---|---|
| \`{ "path": p, "eq": v }\` / \`"ne"\` | the field equals (does not equal) \`v\`: a string, number, boolean or null |
| \`{ "path": p, "in": [v, ...] }\` / \`"nin"\` | the field is (is not) one of 1 to 100 values |
| \`{ "path": p, "gt": v }\`, \`"gte"\`, \`"lt"\`, \`"lte"\` | ${COMPARISONS} |
| \`{ "path": p, "exists": true }\` | the field is present and not null (\`false\`: absent or null) |
| \`{ "and": [f, ...] }\`, \`{ "or": [f, ...] }\`, \`{ "not": f }\` | every / any / not |

- A path names fields of \`data\` joined by dots: \`call_duration\`,
  \`contact.email\`, \`custom_fields.source\`. Paths into \`contact\` see every
  contact field, whatever the form data selects.
- On a list field (\`tags\`), \`eq\` and \`in\` match when any element does,
  \`ne\` and \`nin\` when none does.
- A filter is checked when it is saved, against the event type's JSON Schema
  below: an unknown path, a value of the wrong type or outside the field's
  values, or a malformed node is 422, the error keyed by where it stands
  (\`filters.0.filter.and.1\`) and naming the path. At most
  ${FILTER_NODES_MAX} nodes, ${FILTER_DEPTH_MAX} levels deep.
- Unsubscribing from an event type drops its filter.
- Try one first: \`POST /api/webhooks/filters/test\` (GraphQL
  \`testWebhookFilter\`) with \`event\`, \`filter\` and optionally \`data\`
  answers \`{ "matches": true | false }\` against that data or the event type's
  example.
- A test send ignores filters: it sends the example as it is.

## Operator events

Four event types tell you about your webhooks themselves, as Svix's
operational webhooks and Outpost's alerts do. Subscribe another webhook to
them (a Slack relay, your on-call tool): they are signed, retried and
filtered like every event, and a webhook never receives one about itself.
The Notices panel of Setup > Webhooks, \`GET /api/webhooks/notices\` and
GraphQL \`webhookNotices\` list them for 30 days (\`?webhook_id=\` for one
webhook's).

- \`webhook.failing\`: every attempt since the last success has failed for
  half of the disable window (2.5 days by default), then again at nine tenths
  (4.5 days), with when it will be switched off and the last answer. Each is
  sent once per stretch of failures, at the first failed attempt past its mark.
- \`webhook.disabled\`: the webhook was switched off, \`reason\` \`gone\` (a
  410) or \`failing\` (the whole window). Its waiting deliveries are cancelled.
- \`webhook.recovered\`: a webhook announced as failing answered 2xx again.
  Failures never announced end without a notice.
- \`delivery.exhausted\`: the fifth attempt of a delivery's schedule failed
  (a resend's schedule too); it names the delivery, its event and the last
  answer. A delivery that itself carried an operator event never causes one,
  so two failing webhooks cannot keep telling each other about each other.

${STATS_DOC}
${BROKER_DOC}
${LISTEN_DOC}
${EVENT_FEED_DOC}
## Form data

Field names a webhook can select for \`data.contact\`: ${FORM_FIELDS.map((f) => `\`${f}\``).join(', ')}, or
\`custom_fields.<key>\` for one custom field. The list selection fills them in:

| list selection | fields |
|---|---|
${Object.entries(LIST_SELECTIONS)
  .map(([name, fields]) => `| ${name} | ${fields.join(', ')} |`)
  .join('\n')}
| Custom | the form data given |

## Events

\`GET /api/webhooks/event-types\` serves the same list with each event's JSON
Schema. Every \`data\` also carries \`contact\`.

${events.join('\n')}`;
}
