import { POINTS_RULE } from '../limits/budgets.js';

// The parameters and header fields the OpenAPI document names in components
// (src/rest/openapi.ts): the Idempotency-Key, and the rate limits' fields.

type Schema = Record<string, unknown>;

export const IDEMPOTENCY_KEY: Schema = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes a retry safe: a request sent again with the same key within 24 hours gets the first answer ' +
    'back (with Idempotent-Replayed: true) instead of being made twice. ' +
    'The same key with another request is 422; while the first is still in progress, 409. Only answers ' +
    'of writes that succeeded are kept. 1 to 255 visible ASCII characters, such as a UUID.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7E]+$' },
};

const seconds = { type: 'integer', format: 'int32', minimum: 1 };

/** components.headers: what answers carry beside their body. */
export const HEADERS: Record<string, Schema> = {
  IdempotentReplayed: {
    description: 'true when this is the stored answer to an earlier request with the same Idempotency-Key',
    schema: { type: 'string', const: 'true' },
  },
  RateLimitPolicy: {
    description:
      'The caller\'s budgets (draft-ietf-httpapi-ratelimit-headers): "token" and "company", each with its quota q in points per window of w seconds. ' +
      `Every answer to a signed-in caller carries it. ${POINTS_RULE} GraphQL and REST spend from the same budgets.`,
    schema: { type: 'string', examples: ['"token";q=1200;w=60, "company";q=6000;w=60'] },
  },
  RateLimit: {
    description: 'Where each budget stands: r points remaining, t seconds until its window ends.',
    schema: { type: 'string', examples: ['"token";r=1187;t=42, "company";r=5950;t=42'] },
  },
  RetryAfter: { description: 'Seconds until the next attempt may succeed', schema: seconds },
  'Access-Control-Allow-Origin': {
    description:
      'Only with CORS_ORIGINS set, to a browser request from an origin it names: that origin (or *, without credentials)',
    schema: { type: 'string', maxLength: 2048 },
  },
};

const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** The rate limits' fields on an answer to a signed-in caller. */
export const LIMIT_HEADERS = { 'RateLimit-Policy': ref('RateLimitPolicy'), RateLimit: ref('RateLimit') };

/** A 429's fields: Retry-After, and the rate limits' when a budget of the caller's was spent. */
export const refusalHeaders = (signedIn: boolean) => ({
  'Retry-After': ref('RetryAfter'),
  ...(signedIn ? LIMIT_HEADERS : {}),
});

/** Every route's answer while the database cannot be reached (kernel/errors.ts, DatabaseUnavailableError). */
export const UNAVAILABLE = {
  description: 'The database cannot be reached for now; try again after Retry-After seconds',
  headers: refusalHeaders(false),
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
};

export const IDEMPOTENT_REPLAYED = { 'Idempotent-Replayed': ref('IdempotentReplayed') };

/**
 * Completes the header fields of a route's answers: the rate limits' on every
 * answer to a signed-in caller (a 4xx included: the request spent its points
 * first), except those refused before the caller is known (400 and 413: the
 * body could not be read; 401); and the CORS field wherever an answer names
 * header fields, since the CORS middleware adds it to every answer.
 */
export function completeHeaders(responses: Record<string, Schema>, signedIn: boolean): void {
  for (const [status, response] of Object.entries(responses)) {
    const spent = signedIn && /^[24]/.test(status) && !['400', '401', '413'].includes(status);
    if (spent) response.headers = { ...LIMIT_HEADERS, ...(response.headers as Schema | undefined) };
    if (response.headers)
      response.headers = {
        ...(response.headers as Schema),
        'Access-Control-Allow-Origin': ref('Access-Control-Allow-Origin'),
      };
  }
}
