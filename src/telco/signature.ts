import { createHmac, timingSafeEqual } from 'node:crypto';

// The provider's callback signature (docs/design.md §5): base64 of HMAC-SHA1,
// keyed by the account's auth token, of the full callback URL followed by
// every POST parameter's name and value, sorted by name. Sent in the header
// X-Telco-Signature. The simulator signs with this, the service checks with it.

export const SIGNATURE_HEADER = 'x-telco-signature';

export function telcoSignature(url: string, params: Record<string, string>, authToken: string): string {
  const payload = Object.keys(params)
    .sort()
    .reduce((text, name) => text + name + params[name], url);
  return createHmac('sha1', authToken).update(payload, 'utf8').digest('base64');
}

export function signatureMatches(
  given: string | undefined,
  url: string,
  params: Record<string, string>,
  authToken: string,
): boolean {
  if (!given) return false;
  const expected = Buffer.from(telcoSignature(url, params, authToken));
  const actual = Buffer.from(given);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
