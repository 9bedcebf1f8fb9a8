import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

// Prometheus metrics served at /metrics. One registry per app instance, so
// several apps in one process (the tests) do not collide.

export interface Metrics {
  registry: Registry;
  httpDuration: Histogram<'method' | 'route' | 'status'>;
  webhookAttempts: Counter<'outcome'>;
  webhookEventsFiltered: Counter<'event'>;
  webhookClaims: Counter<'found'>;
  jobLag: Gauge<'job'>;
  graphqlFields: Counter<'type' | 'field'>;
  firstAttemptLatency: Histogram;
  deliveriesDue: Gauge;
  oldestDueSeconds: Gauge;
  /** Decision requests in the call path, by endpoint id and outcome (answered, fallback). */
  decisionDuration: Histogram<'endpoint' | 'outcome'>;
  decisionFallbacks: Counter<'reason'>;
  decisionBreakerOpen: Gauge<'endpoint'>;
  dbPoolWait: Histogram<'pool'>;
  /** What the call path keeps in memory, by kind; `sizes` is read at each scrape (set by the composition root). */
  callPathKept: { sizes: () => Record<string, number> };
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const callPathKept = { sizes: (): Record<string, number> => ({}) };
  new Gauge({
    name: 'call_path_kept',
    help: 'What the call path keeps in memory, by kind: configuration entries, contacts, calls decided lately',
    labelNames: ['kind'],
    registers: [registry],
    collect() {
      for (const [kind, size] of Object.entries(callPathKept.sizes())) this.set({ kind }, size);
    },
  });
  return {
    registry,
    httpDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency by route',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    webhookAttempts: new Counter({
      name: 'webhook_attempts_total',
      help: 'Webhook delivery attempts by outcome',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    // Event types come from the catalog (a fixed set).
    webhookEventsFiltered: new Counter({
      name: 'webhook_events_filtered_total',
      help: "Events a webhook's payload filter turned away (no delivery made), by event type, counted per webhook",
      labelNames: ['event'],
      registers: [registry],
    }),
    // A claim that found nothing is work spent for nothing: wake-ups answered by more than one pump, or polls.
    webhookClaims: new Counter({
      name: 'webhook_claims_total',
      help: "Claims of due deliveries made by this worker's pump, by whether they took any (found: yes or no)",
      labelNames: ['found'],
      registers: [registry],
    }),
    firstAttemptLatency: new Histogram({
      name: 'webhook_first_attempt_latency_seconds',
      help: 'From the event being recorded to its first delivery attempt finishing',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    deliveriesDue: new Gauge({
      name: 'webhook_deliveries_due',
      help: 'Pending deliveries whose next attempt is due',
      registers: [registry],
    }),
    oldestDueSeconds: new Gauge({
      name: 'webhook_oldest_due_seconds',
      help: 'How long the oldest due delivery has been waiting',
      registers: [registry],
    }),
    // Root fields come from the schema (a fixed set): no client can grow the series.
    graphqlFields: new Counter({
      name: 'graphql_root_fields_total',
      help: 'GraphQL root fields requested at /graphql, by operation type and field (REST routes are measured by route)',
      labelNames: ['type', 'field'],
      registers: [registry],
    }),
    // Endpoint ids are the company's decision endpoints (a bounded set per company); reasons a closed set.
    decisionDuration: new Histogram({
      name: 'call_decision_duration_seconds',
      help: 'From asking a decision endpoint to having the decision (its answer or the fallback), by endpoint and outcome',
      labelNames: ['endpoint', 'outcome'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5],
      registers: [registry],
    }),
    decisionFallbacks: new Counter({
      name: 'call_decision_fallbacks_total',
      help: 'Decisions that fell back, by reason (timeout, error, invalid, unreachable, breaker_open)',
      labelNames: ['reason'],
      registers: [registry],
    }),
    decisionBreakerOpen: new Gauge({
      name: 'call_decision_breaker_open',
      help: "1 while a decision endpoint's circuit breaker is open (or half-open), else 0",
      labelNames: ['endpoint'],
      registers: [registry],
    }),
    dbPoolWait: new Histogram({
      name: 'db_pool_wait_seconds',
      help: 'Time a unit of work waited for a database connection, by pool',
      labelNames: ['pool'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
      registers: [registry],
    }),
    callPathKept,
    jobLag: new Gauge({
      name: 'job_lag_seconds',
      help: 'Delay between a job being due and starting, by job name',
      labelNames: ['job'],
      registers: [registry],
    }),
  };
}
