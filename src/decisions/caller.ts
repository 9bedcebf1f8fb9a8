import { ulidFactory } from '../kernel/ulids.js';
import { VERSION } from '../config/version.js';
import type { Metrics } from '../observability/metrics.js';
import { resolveDestination, type Destination, type DestinationPolicy } from '../webhooks/config/destination.js';
import { standardSignature } from '../webhooks/config/signing.js';
import type { SendResult } from '../webhooks/engine/attempt.js';
import { sendAttempt, warmConnection } from '../webhooks/engine/http-send.js';
import type { EndpointAuth } from '../webhooks/engine/endpoint-auth.js';
import { EndpointHealth, type BreakerView } from './endpoint-health.js';
import type { FallbackReason } from '../kernel/call-decision.js';
import type { CallPathRecord, RecordTarget } from './call-path-record.js';

// Asking the company's endpoint inside the call path (docs/adr/0068-decisions-in-the-call-path.md),
// a decision endpoint or an agent's tool:
// one signed POST (Standard Webhooks headers) over a kept-alive connection,
// answered within what is left of the deadline, or the fallback. Optionally a
// hedged second request when the first is slower than the endpoint's recent
// p95 and the deadline leaves room. The circuit breaker answers with the
// fallback at once while the endpoint keeps failing.

const USER_AGENT = `Switchboard-Decisions/${VERSION}`;
/** An answer may hold 50 variables of 1,000 characters: keep all of it (the read stops at 64 KiB). */
const ANSWER_KEEP = 64 * 1024;
/** How long a resolved and checked address is reused. */
const ADDRESS_TTL_MS = 30_000;

/** The endpoint as the call path needs it (its secret unsealed). */
export interface DecisionTarget {
  /** Names its breaker and its metrics: `decision:<id>` or `tool:<id>`. */
  key: string;
  /** Whose record over time its questions count in. */
  record: RecordTarget;
  url: string;
  secret: string;
  deadlineMs: number;
  hedge: boolean;
  /** OAuth2 client credentials and client TLS, sealed (webhooks/config/credentials.ts). */
  credentialsSealed?: string | null;
}

/** Reads an answer's text: what it says, or why it is not taken. */
export type ReadAnswer<T> = (text: string) => T | string;

/** What asking gave: the endpoint's answer as read, or why the fallback decides. */
export interface Outcome<T> {
  value?: T;
  fallbackReason?: FallbackReason;
  /** The endpoint's reason for a reject, or why its answer was not taken. */
  reason: string | null;
  latencyMs: number;
  /** A second request was sent. */
  hedged: boolean;
}

/** What one question came to; `endpointMs`: the answering request's own time, null when none was sent. */
type Asked<T> = ({ value: T; reason: null } | { fallbackReason: FallbackReason; reason: string }) & {
  endpointMs: number | null;
};

export class DecisionCaller {
  private readonly health = new Map<string, EndpointHealth>();
  private readonly addresses = new Map<string, { until: number; destination: Destination }>();

  constructor(
    private readonly settings: { destinations: DestinationPolicy; breakerOpenMs: number },
    private readonly metrics: Metrics,
    private readonly auth: EndpointAuth,
    private readonly record: CallPathRecord,
  ) {}

  /**
   * Asks the endpoint, within its deadline counted from `startedAt`
   * (performance.now() when the call arrived). Never throws: every failure
   * is an outcome with a fallback reason.
   */
  async decide<T>(
    endpoint: DecisionTarget,
    payload: string,
    read: ReadAnswer<T>,
    startedAt: number,
  ): Promise<Outcome<T>> {
    const health = this.healthOf(endpoint.key);
    const left = () => endpoint.deadlineMs - (performance.now() - startedAt);
    let hedged = false;
    let asked: Asked<T>;
    if (!health.admit()) {
      asked = { fallbackReason: 'breaker_open', reason: "the endpoint's circuit breaker is open", endpointMs: null };
    } else {
      const url = new URL(endpoint.url);
      const destination = await this.destination(url).catch((error: Error) => error);
      if (destination instanceof Error) {
        asked = { fallbackReason: 'unreachable', reason: destination.message, endpointMs: null };
      } else {
        // One message id for the decision: a hedged second request is the same message.
        const signed = signedHeaders(endpoint.secret, payload);
        const ask = () =>
          this.ask(url, destination, signed, payload, read, Math.max(1, left()), endpoint.credentialsSealed);
        const p95 = endpoint.hedge ? health.recentP95() : null;
        const first = ask();
        if (p95 !== null && left() > 2 * p95) {
          const late = await Promise.race([first, delay(p95).then(() => undefined)]);
          if (late === undefined) {
            hedged = true;
            asked = await firstDecided(first, ask());
          } else asked = late;
        } else asked = await first;
      }
    }
    const latencyMs = performance.now() - startedAt;
    let opened = false;
    if ('value' in asked) health.succeeded(latencyMs);
    else if (asked.fallbackReason !== 'breaker_open') opened = health.failed();
    this.observe(endpoint.key, asked, latencyMs, health);
    this.record.count(endpoint.record, {
      outcome: 'value' in asked ? 'answered' : asked.fallbackReason,
      addedMs: latencyMs - (asked.endpointMs ?? 0),
      endpointMs: asked.endpointMs,
      hedged,
      opened,
    });
    const { endpointMs: _, ...outcome } = asked;
    return { ...outcome, latencyMs: Math.round(latencyMs), hedged };
  }

  /** The breaker of an endpoint as this process sees it. */
  breaker(key: string): BreakerView {
    return this.healthOf(key).view();
  }

  /** Opens a kept-alive connection to a saved endpoint (best effort; a failure waits for the first call). */
  async warm(rawUrl: string, credentialsSealed?: string | null): Promise<void> {
    const url = new URL(rawUrl);
    const destination = await this.destination(url).catch(() => undefined);
    if (destination) await warmConnection(url, destination, 2000, this.auth.tlsOf(credentialsSealed));
  }

  /** Forgets a deleted endpoint's breaker. */
  forget(key: string): void {
    this.health.delete(key);
    this.metrics.decisionBreakerOpen.remove({ endpoint: key });
  }

  private async ask<T>(
    url: URL,
    destination: Destination,
    headers: Record<string, string>,
    payload: string,
    read: ReadAnswer<T>,
    timeoutMs: number,
    credentialsSealed: string | null | undefined,
  ): Promise<Asked<T>> {
    const sent = performance.now();
    const result: SendResult = await this.auth.send(
      sendAttempt,
      url,
      destination,
      payload,
      headers,
      timeoutMs,
      credentialsSealed,
      { keepChars: ANSWER_KEEP },
    );
    const endpointMs = performance.now() - sent;
    if (result.timedOut)
      return { fallbackReason: 'timeout', reason: `no answer within ${Math.round(timeoutMs)} ms`, endpointMs };
    if (result.error !== null) {
      return result.statusCode === null
        ? { fallbackReason: 'unreachable', reason: result.error, endpointMs }
        : { fallbackReason: 'error', reason: `the endpoint answered ${result.error}`, endpointMs };
    }
    const value = read(result.responseBody ?? '');
    return typeof value === 'string'
      ? { fallbackReason: 'invalid', reason: value, endpointMs }
      : { value, reason: null, endpointMs };
  }

  private observe<T>(endpoint: string, asked: Asked<T>, latencyMs: number, health: EndpointHealth): void {
    const answered = 'value' in asked;
    this.metrics.decisionDuration.observe({ endpoint, outcome: answered ? 'answered' : 'fallback' }, latencyMs / 1000);
    if (!answered) this.metrics.decisionFallbacks.inc({ reason: asked.fallbackReason });
    this.metrics.decisionBreakerOpen.set({ endpoint }, health.closed ? 0 : 1);
  }

  private healthOf(key: string): EndpointHealth {
    let health = this.health.get(key);
    if (!health) this.health.set(key, (health = new EndpointHealth(this.settings.breakerOpenMs)));
    return health;
  }

  /** The checked address of the endpoint's host, resolved again after ADDRESS_TTL_MS. */
  private async destination(url: URL): Promise<Destination> {
    const known = this.addresses.get(url.hostname);
    if (known && known.until > Date.now()) return known.destination;
    const destination = await resolveDestination(url.hostname, this.settings.destinations);
    if (this.addresses.size >= 10_000) this.addresses.clear();
    this.addresses.set(url.hostname, { until: Date.now() + ADDRESS_TTL_MS, destination });
    return destination;
  }
}

const nextId = ulidFactory();

/** The request's headers: Standard Webhooks' id, timestamp and signature with the endpoint's secret. */
function signedHeaders(secret: string, payload: string): Record<string, string> {
  const id = `msg_${nextId()}`;
  const timestamp = Math.floor(Date.now() / 1000);
  return {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': standardSignature(secret, id, timestamp, payload),
  };
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** The first of two requests to decide, or the later failure when neither does. */
function firstDecided<T>(a: Promise<Asked<T>>, b: Promise<Asked<T>>): Promise<Asked<T>> {
  return new Promise((resolve) => {
    let pending = 2;
    const settle = (asked: Asked<T>) => {
      pending -= 1;
      if ('value' in asked || pending === 0) resolve(asked);
    };
    void a.then(settle);
    void b.then(settle);
  });
}
