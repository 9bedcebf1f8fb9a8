import { createHash } from 'node:crypto';
import type { SecretBox } from '../../crypto/secret-box.js';
import { openCredentials, type EndpointCredentials, type OAuth2Credentials } from '../config/credentials.js';
import { resolveDestination, type Destination, type DestinationPolicy } from '../config/destination.js';
import type { ClientTls, Send, SendOptions, SendResult } from './attempt.js';
import { sendAttempt } from './http-send.js';

// An endpoint's credentials applied to a request (docs/adr/0070-endpoint-credentials.md):
// its client TLS given to the connection, and an OAuth2 client-credentials
// token as `authorization: Bearer`, fetched from the token URL (under the
// same address rules), kept until shortly before it expires, and fetched
// again once when the endpoint answers 401.

/** A token is fetched again this long before it expires. */
const EARLY_MS = 30_000;
const KEPT_MAX = 1000;

interface Prepared {
  credentials: EndpointCredentials;
  tls?: ClientTls;
}

interface Token {
  value: string;
  until: number;
}

export class EndpointAuth {
  private readonly prepared = new Map<string, Prepared>();
  private readonly tokens = new Map<string, Token>();
  private readonly fetching = new Map<string, Promise<string>>();

  constructor(
    private readonly box: SecretBox,
    private readonly policy: DestinationPolicy,
  ) {}

  /** The client TLS of sealed credentials, for a connection opened ahead of a request. */
  tlsOf(sealed: string | null | undefined): ClientTls | undefined {
    return this.prepare(sealed)?.tls;
  }

  /** Sends with the endpoint's credentials (none: as is); a failure to get a token is the attempt's error. */
  async send(
    send: Send,
    url: URL,
    destination: Destination,
    body: string,
    headers: Record<string, string>,
    timeoutMs: number,
    sealed: string | null | undefined,
    options: SendOptions = {},
  ): Promise<SendResult> {
    const prepared = this.prepare(sealed);
    if (!prepared) return send(url, destination, body, headers, timeoutMs, options);
    const withTls = { ...options, tls: prepared.tls };
    const { oauth2 } = prepared.credentials;
    if (!oauth2) return send(url, destination, body, headers, timeoutMs, withTls);
    const started = performance.now();
    const left = () => Math.max(1, timeoutMs - (performance.now() - started));
    const attempt = async (fresh: boolean) => {
      const token = await this.token(oauth2, left(), fresh);
      return send(url, destination, body, { ...headers, authorization: `Bearer ${token}` }, left(), withTls);
    };
    try {
      const first = await attempt(false);
      // A token the endpoint no longer takes (revoked, rotated): one more try with a new one.
      return first.statusCode === 401 ? await attempt(true) : first;
    } catch (error) {
      return {
        statusCode: null,
        responseBody: null,
        error: `OAuth2 token: ${(error as Error).message}`,
        durationMs: Math.round(performance.now() - started),
      };
    }
  }

  private prepare(sealed: string | null | undefined): Prepared | undefined {
    if (!sealed) return undefined;
    let prepared = this.prepared.get(sealed);
    if (!prepared) {
      const credentials = openCredentials(this.box, sealed);
      if (!credentials) return undefined;
      const { tls } = credentials;
      prepared = {
        credentials,
        tls: tls
          ? {
              id: createHash('sha256')
                .update(`${tls.clientCertificate ?? ''}|${tls.clientKey ?? ''}|${tls.ca ?? ''}`)
                .digest('hex')
                .slice(0, 16),
              cert: tls.clientCertificate ?? undefined,
              key: tls.clientKey ?? undefined,
              ca: tls.ca ?? undefined,
            }
          : undefined,
      };
      if (this.prepared.size >= KEPT_MAX) this.prepared.delete(this.prepared.keys().next().value as string);
      this.prepared.set(sealed, prepared);
    }
    return prepared;
  }

  /** A token of the client: the kept one, or one fetched (once for concurrent requests). */
  private async token(oauth2: OAuth2Credentials, timeoutMs: number, fresh: boolean): Promise<string> {
    const key = createHash('sha256')
      .update(`${oauth2.tokenUrl}|${oauth2.clientId}|${oauth2.clientSecret}|${oauth2.scope ?? ''}`)
      .digest('hex');
    const kept = this.tokens.get(key);
    if (kept && !fresh && kept.until > Date.now()) return kept.value;
    if (fresh) this.tokens.delete(key);
    let pending = this.fetching.get(key);
    if (!pending) {
      pending = this.fetchToken(oauth2, timeoutMs).then((token) => {
        if (this.tokens.size >= KEPT_MAX) this.tokens.delete(this.tokens.keys().next().value as string);
        this.tokens.set(key, token);
        return token.value;
      });
      pending.finally(() => this.fetching.delete(key)).catch(() => undefined);
      this.fetching.set(key, pending);
    }
    return pending;
  }

  /** RFC 6749 §4.4: POST grant_type=client_credentials, the client authenticated with HTTP Basic. */
  private async fetchToken(oauth2: OAuth2Credentials, timeoutMs: number): Promise<Token> {
    const url = new URL(oauth2.tokenUrl);
    const destination = await resolveDestination(url.hostname, this.policy);
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (oauth2.scope) form.set('scope', oauth2.scope);
    const basic = Buffer.from(
      `${encodeURIComponent(oauth2.clientId)}:${encodeURIComponent(oauth2.clientSecret)}`,
    ).toString('base64');
    const result = await sendAttempt(
      url,
      destination,
      form.toString(),
      {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
        authorization: `Basic ${basic}`,
      },
      timeoutMs,
      { keepChars: 64 * 1024 },
    );
    if (result.error !== null) throw new Error(`the token URL answered ${result.error}`);
    let answer: { access_token?: unknown; token_type?: unknown; expires_in?: unknown };
    try {
      answer = JSON.parse(result.responseBody ?? '');
    } catch {
      throw new Error('the token URL did not answer JSON');
    }
    if (typeof answer.access_token !== 'string' || answer.access_token === '')
      throw new Error('the token URL answered no access_token');
    if (typeof answer.token_type === 'string' && answer.token_type.toLowerCase() !== 'bearer')
      throw new Error(`the token URL answered a ${answer.token_type} token, not a bearer token`);
    const seconds = typeof answer.expires_in === 'number' && answer.expires_in > 0 ? answer.expires_in : 3600;
    return { value: answer.access_token, until: Date.now() + Math.max(0, seconds * 1000 - EARLY_MS) };
  }
}
