import type { SecretBox } from '../../crypto/secret-box.js';
import { message, type Rules } from '../../kernel/validation.js';
import { BOUNDS } from '../../kernel/bounds.js';

// A webhook's custom headers (for receivers behind a gateway that wants a
// static key): at most ten, sent on every attempt. A value marked secret is
// sealed under APP_KEY like the signing secret and never returned; the
// attempt log names the headers sent, never their values.

/** As stored: a plain value, or a secret one sealed. */
export interface StoredHeader {
  name: string;
  value?: string;
  sealed?: string;
}

export interface WebhookHeaderInput {
  name: string;
  /** For a secret header, leave it out to keep the value it has. */
  value?: string | null;
  secret?: boolean | null;
}

/** As served: a secret header's value is null. */
export interface WebhookHeaderRecord {
  name: string;
  value: string | null;
  secret: boolean;
}

export const HEADERS_MAX = BOUNDS.webhook.headers.maxItems;
export const HEADER_NAME_MAX = BOUNDS.webhook.headerName.maxLength;
export const HEADER_VALUE_MAX = BOUNDS.webhook.headerValue.maxLength;

/** An HTTP field name (RFC 9110 token). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** What Node sends in a field value: tab, visible ASCII, space, and bytes above 127; never CR, LF or NUL. */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** Ours (the signature and its kin, the trace context), the body's, and the connection's: a webhook cannot set them. */
const RESERVED_PREFIXES = ['webhook-', 'x-webhook-', 'content-', 'proxy-'];
const RESERVED = new Set([
  'host',
  'user-agent',
  'connection',
  'keep-alive',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'expect',
  'traceparent',
  'tracestate',
]);

export const isReservedHeader = (name: string) => {
  const lower = name.toLowerCase();
  return RESERVED.has(lower) || RESERVED_PREFIXES.some((prefix) => lower.startsWith(prefix));
};

/**
 * The headers to store for `input`, each error added to `rules` under
 * `headers.<i>.name` or `.value`. A secret header given without a value keeps
 * the value the webhook's header of that name has (`current`).
 */
export function headersToStore(
  rules: Rules,
  input: WebhookHeaderInput[],
  current: StoredHeader[],
  box: SecretBox,
): StoredHeader[] {
  if (input.length > HEADERS_MAX) rules.add('headers', message.maxItems('headers', HEADERS_MAX));
  const seen = new Set<string>();
  const stored: StoredHeader[] = [];
  input.forEach((header, i) => {
    const at = `headers.${i}`;
    const name = header.name.trim();
    if (!name) rules.add(`${at}.name`, message.required(`${at}.name`));
    else if (name.length > HEADER_NAME_MAX) rules.add(`${at}.name`, message.maxChars(`${at}.name`, HEADER_NAME_MAX));
    else if (!TOKEN.test(name))
      rules.add(
        `${at}.name`,
        `The ${at}.name field must be an HTTP header name (letters, digits and !#$%&'*+.^_\`|~-).`,
      );
    else if (isReservedHeader(name))
      rules.add(`${at}.name`, `The ${at}.name field names a header Switchboard sets itself (${name.toLowerCase()}).`);
    else if (seen.has(name.toLowerCase())) rules.add(`${at}.name`, `The ${at}.name field repeats a header name.`);
    seen.add(name.toLowerCase());
    const kept =
      header.secret && (header.value === undefined || header.value === null)
        ? current.find((c) => c.sealed && c.name.toLowerCase() === name.toLowerCase())
        : undefined;
    if (kept) return void stored.push({ name, sealed: kept.sealed });
    const value = header.value ?? '';
    if (value === '') rules.add(`${at}.value`, message.required(`${at}.value`));
    else if (value.length > HEADER_VALUE_MAX)
      rules.add(`${at}.value`, message.maxChars(`${at}.value`, HEADER_VALUE_MAX));
    else if (!FIELD_VALUE.test(value))
      rules.add(`${at}.value`, `The ${at}.value field must not contain line breaks or control characters.`);
    stored.push(header.secret ? { name, sealed: box.seal(value) } : { name, value });
  });
  return stored;
}

export const headerRecords = (stored: StoredHeader[]): WebhookHeaderRecord[] =>
  stored.map((h) => ({ name: h.name, value: h.sealed ? null : (h.value ?? ''), secret: !!h.sealed }));

/** The headers an attempt sends, secret values opened. */
export function headersToSend(stored: StoredHeader[] | null | undefined, box: SecretBox): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of stored ?? []) {
    const value = h.sealed ? box.open(h.sealed) : h.value;
    if (value !== undefined && value !== null) out[h.name] = value;
  }
  return out;
}
