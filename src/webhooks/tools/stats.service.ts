import type { RequestContext } from '../../context/request-context.js';
import {
  ATTEMPT_OUTCOMES,
  type AttemptOutcome,
  histogramPercentile,
  LATENCY_BOUNDS_MS,
  LATENCY_SLOTS,
  type StatsBucket,
} from '../../kernel/attempt-outcome.js';
import { type StatsArgs, statsWindow, type StatsWindow } from '../../kernel/time/stats-window.js';
import {
  type StatsPoint,
  type StatsScope,
  webhookStatsRepository,
} from '../../repositories/webhook-stats.repository.js';
import type { WebhookService } from '../config/webhook.service.js';

// An endpoint's record over time (docs/webhooks.md, "Endpoint health"): a webhook's attempts by outcome, its success
// rate and answer times, in buckets of a minute, an hour or a day of the company's zone, with the company's totals
// beside it; or the same for all the company's webhooks. Read from the aggregates the engine keeps as it settles
// attempts, never from the attempts log: the answer costs the same for a webhook of ten attempts or ten million.

/** docs/webhooks.md's section on it (src/webhooks/config/docs.ts). */
export const STATS_DOC = `## Endpoint health

Each webhook's record over time, as Svix's and Hookdeck's endpoint pages
show it: its attempts by outcome, its success rate and its answer times,
kept as the attempts are made (not counted from the delivery log, so a long
history costs nothing to read).

\`\`\`
GET /api/webhooks/{id}/stats?bucket=hour&from=2026-11-28T00:00:00Z&to=2026-11-29T00:00:00Z
{ "success": true, "data": { "webhook_id": "12", "bucket": "hour", "from": "...", "to": "...", "time_zone": "...",
  "totals": { "attempts": 120, "success": 114, "client_error": 0, "server_error": 4, "timeout": 2, "network": 0,
    "broker_refused": 0, "interrupted": 0, "failed": 1, "success_rate": 0.95, "p50_ms": 100, "p95_ms": 500, "p99_ms": 1000 },
  "company_totals": { ... }, "waiting": 3, "points": [ { "at": "...", "attempts": 5, ... } ] } }
\`\`\`

- Outcomes: \`success\` (a 2xx, or a broker that took the message),
  \`client_error\` (any other answer below 500), \`server_error\` (5xx),
  \`timeout\` (no answer within WEBHOOK_TIMEOUT), \`network\` (refused,
  reset, DNS, TLS), \`broker_refused\`, and \`interrupted\` (the worker
  making the attempt stopped; the attempt is made again). \`failed\`: deliveries
  whose last attempt failed in the bucket. \`waiting\`: deliveries waiting now.
- Answer times come from a histogram with slots ending at ${LATENCY_BOUNDS_MS.join(', ')} ms: a
  percentile is the end of its slot.
- Buckets are minutes (the last 24 hours), hours (up to 30 days at a time) or
  days (up to 90 days at a time) of the company's time zone: a day of a
  daylight-saving change has 23 or 25 hours, and every bucket of the window is
  listed, empty ones too. A window beyond these, a \`to\` in the future or an
  unreadable date is refused, naming the field and the value.
- On Setup > Webhooks, each webhook's page charts its attempts by outcome
  and its answer times over the last hour, day or 30 days, and the list shows
  each webhook's last day at a glance.
- \`GET /api/webhooks/stats\` gives the same for all the company's webhooks;
  a webhook's record carries the company's totals beside its own. GraphQL:
  \`webhookStats(id, from, to, bucket)\` and \`companyWebhookStats\`. Requires
  \`view-webhooks\`. WEBHOOK_STATS=false stops keeping the record.
`;

/** Attempts by outcome, failed deliveries, the success rate and answer-time percentiles (ms) of a span of time. */
export interface StatsFigures {
  attempts: number;
  success: number;
  clientError: number;
  serverError: number;
  timeout: number;
  network: number;
  brokerRefused: number;
  interrupted: number;
  failed: number;
  successRate: number | null;
  p50Ms: number | null;
  p95Ms: number | null;
  p99Ms: number | null;
}

export interface StatsRecord {
  /** The webhook's id; null for the company's totals over all its webhooks. */
  webhookId: number | null;
  bucket: StatsBucket;
  from: Date;
  to: Date;
  timeZone: string;
  totals: StatsFigures;
  /** Beside a webhook's: the company's over the same window. */
  companyTotals: StatsFigures | null;
  /** A webhook's deliveries waiting for an attempt now. */
  waiting: number | null;
  points: Array<StatsFigures & { at: Date }>;
}

export class WebhookStatsService {
  constructor(
    private readonly webhooks: WebhookService,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** One webhook's record; 404 for another company's, an unknown or a malformed id. */
  async forWebhook(ctx: RequestContext, rawId: string, args: StatsArgs): Promise<StatsRecord> {
    const webhook = await this.webhooks.find(ctx, rawId);
    const { company } = await ctx.viewer();
    const window = statsWindow(args, company.timeZone, this.clock());
    // Three reads, side by side on the pool.
    const [points, companyTotals, waiting] = await Promise.all([
      webhookStatsRepository.series(ctx, { webhookId: webhook.id }, window),
      webhookStatsRepository.totals(ctx, { companyId: company.id }, window),
      webhookStatsRepository.waiting(ctx, webhook.id),
    ]);
    return { ...this.record(webhook.id, window, points), companyTotals: figures(companyTotals), waiting };
  }

  /** The company's record over all its webhooks. */
  async forCompany(ctx: RequestContext, args: StatsArgs): Promise<StatsRecord> {
    const { company } = await ctx.viewer();
    const window = statsWindow(args, company.timeZone, this.clock());
    const scope: StatsScope = { companyId: company.id };
    const points = await webhookStatsRepository.series(ctx, scope, window);
    return { ...this.record(null, window, points), companyTotals: null, waiting: null };
  }

  private record(webhookId: number | null, window: StatsWindow, points: StatsPoint[]) {
    return {
      webhookId,
      ...window,
      totals: figures(sum(points)),
      points: points.map((point) => ({ at: point.at, ...figures(point) })),
    };
  }
}

/** The points' counts and histograms added up. */
function sum(points: StatsPoint[]): Omit<StatsPoint, 'at'> {
  const total = {
    counts: Object.fromEntries(ATTEMPT_OUTCOMES.map((o) => [o, 0])) as Record<AttemptOutcome, number>,
    failed: 0,
    latency: new Array<number>(LATENCY_SLOTS).fill(0),
  };
  for (const point of points) {
    for (const o of ATTEMPT_OUTCOMES) total.counts[o] += point.counts[o];
    total.failed += point.failed;
    point.latency.forEach((n, i) => {
      total.latency[i] += n;
    });
  }
  return total;
}

function figures({ counts, failed, latency }: Omit<StatsPoint, 'at'>): StatsFigures {
  const attempts = ATTEMPT_OUTCOMES.reduce((n, o) => n + counts[o], 0);
  return {
    attempts,
    success: counts.success,
    clientError: counts.client_error,
    serverError: counts.server_error,
    timeout: counts.timeout,
    network: counts.network,
    brokerRefused: counts.broker_refused,
    interrupted: counts.interrupted,
    failed,
    successRate: attempts === 0 ? null : Math.round((counts.success / attempts) * 10_000) / 10_000,
    p50Ms: histogramPercentile(latency, 50),
    p95Ms: histogramPercentile(latency, 95),
    p99Ms: histogramPercentile(latency, 99),
  };
}
