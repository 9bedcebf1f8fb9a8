import {
  createHmac,
  createPrivateKey,
  createPublicKey,
  type KeyObject,
  randomBytes,
  sign,
  timingSafeEqual,
} from 'node:crypto';

// Signatures of a delivery (docs/design.md §5): the spec's `sha256=<hex>` in
// metadata.signature and x-webhook-signature, and the Standard Webhooks
// headers, so the standardwebhooks and svix libraries verify unchanged. A
// webhook that asks for Ed25519 (docs/adr/0064-ed25519-signatures.md) gets
// Standard Webhooks' asymmetric `v1a,` signatures in webhook-signature instead.

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

const KEY_PREFIX = 'whsk_';
const PUBLIC_KEY_PREFIX = 'whpk_';
/** PKCS #8 of an Ed25519 key up to its 32-byte seed (RFC 8410). */
const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');

/** A new Ed25519 signing key: whsk_ + base64 of its 32-byte seed. Kept sealed; never shown. */
export const newSigningKey = () => `${KEY_PREFIX}${randomBytes(32).toString('base64')}`;

// Keys in use, made once each: a delivery's attempts sign with the same key.
const keyObjects = new Map<string, KeyObject>();
function privateKeyOf(key: string): KeyObject {
  let object = keyObjects.get(key);
  if (!object) {
    const seed = Buffer.from(key.slice(KEY_PREFIX.length), 'base64');
    if (!key.startsWith(KEY_PREFIX) || seed.length !== 32) throw new Error('not an Ed25519 signing key');
    object = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: 'der', type: 'pkcs8' });
    if (keyObjects.size >= 1000) keyObjects.delete(keyObjects.keys().next().value as string);
    keyObjects.set(key, object);
  }
  return object;
}

/** The public key of a signing key: whpk_ + base64 of its 32 bytes, as Standard Webhooks writes it. */
export function publicKeyOf(key: string): string {
  const spki = createPublicKey(privateKeyOf(key)).export({ format: 'der', type: 'spki' });
  return `${PUBLIC_KEY_PREFIX}${spki.subarray(-32).toString('base64')}`;
}

/** Standard Webhooks' asymmetric signature: `v1a,` + base64 Ed25519 signature of `id.timestamp.body`. */
export const asymmetricSignature = (key: string, id: string, timestamp: number, body: string): string =>
  `v1a,${sign(null, Buffer.from(`${id}.${timestamp}.${body}`, 'utf8'), privateKeyOf(key)).toString('base64')}`;

export interface SignedRequest {
  body: string;
  headers: Record<string, string>;
}

/**
 * The body and headers of one attempt. `secrets` are the valid secrets, the
 * current first: metadata.signature uses the current one; webhook-signature
 * carries one signature per valid secret (two during a rotation), or, for a
 * webhook with Ed25519 `keys`, one `v1a,` signature per valid key.
 */
export function signAttempt(args: {
  secrets: string[];
  keys?: string[];
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
      'webhook-signature': args.keys?.length
        ? args.keys.map((key) => asymmetricSignature(key, args.deliveryId, timestamp, body)).join(' ')
        : args.secrets.map((secret) => standardSignature(secret, args.deliveryId, timestamp, body)).join(' '),
    },
  };
}
