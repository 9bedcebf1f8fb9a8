import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

// Signatures of a delivery (docs/design.md §5): the spec's `sha256=<hex>` in
// metadata.signature and x-webhook-signature, and the Standard Webhooks
// headers, so the standardwebhooks and svix libraries verify unchanged.

const SECRET_PREFIX = 'whsec_';

/** A new signing secret: whsec_ + base64 of 32 random bytes. */
export const newSecret = () => `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;

/** `sha256=` + hex HMAC-SHA256 of the unsigned payload text, keyed by the whole secret string. */
export const payloadSignature = (secret: string, unsignedPayload: string) =>
  `sha256=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(unsignedPayload, 'utf8').digest('hex')}`;

const UNSIGNED_END = '"version":"1.0"}}';

/**
 * The body sent: the unsigned payload with `,"signature":"<value>"` put
 * before the closing brace of metadata (its last key).
 */
export function signedBody(unsignedPayload: string, signature: string): string {
  if (!unsignedPayload.endsWith(UNSIGNED_END)) throw new Error('The payload must end with its metadata');
  return `${unsignedPayload.slice(0, -2)},"signature":"${signature}"}}`;
}

/** What a receiver does: take the exact signature text out of the raw body and compare HMACs in constant time. */
export function verifyBody(secret: string, rawBody: string, header: string): boolean {
  const marker = `,"signature":"${header}"}}`;
  if (!rawBody.endsWith(marker)) return false;
  const expected = Buffer.from(payloadSignature(secret, `${rawBody.slice(0, -marker.length)}}}`));
  const given = Buffer.from(header);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`, keyed by the secret's decoded bytes. */
export function standardSignature(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`, 'utf8').digest('base64')}`;
}

export interface SignedRequest {
  body: string;
  headers: Record<string, string>;
}

/**
 * The body and headers of one attempt. `secrets` are the valid secrets, the
 * current first: metadata.signature uses the current one; webhook-signature
 * carries one signature per valid secret (two during a rotation).
 */
export function signAttempt(args: {
  secrets: string[];
  deliveryId: string;
  event: string;
  attempt: number;
  payload: string;
  now: Date;
  userAgent: string;
}): SignedRequest {
  const signature = payloadSignature(args.secrets[0], args.payload);
  const body = signedBody(args.payload, signature);
  const timestamp = Math.floor(args.now.getTime() / 1000);
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': args.userAgent,
      'x-webhook-id': args.deliveryId,
      'x-webhook-event': args.event,
      'x-webhook-attempt': String(args.attempt),
      'x-webhook-signature': signature,
      'webhook-id': args.deliveryId,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': args.secrets
        .map((secret) => standardSignature(secret, args.deliveryId, timestamp, body))
        .join(' '),
    },
  };
}
