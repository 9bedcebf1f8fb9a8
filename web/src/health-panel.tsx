import { useEffect, useState } from 'preact/hooks';
import { type ApiError, gql } from './api';
import { asApiError } from './delivery-log';
import { type Line, StatsChart, WINDOWS, WindowSelect } from './stats-chart';
import { ErrorBanner, Loading, useInterval } from './ui';

// A webhook's health (docs/webhooks.md, Endpoint health): its attempts by outcome and its answer times over a
// chosen window, drawn with uPlot (docs/adr/0082-charts-with-uplot.md), refreshed while the page is open. Each
// chart is a figure with a caption that says what it shows in words, and the numbers behind it in a table: it reads
// without colour, and each outcome's line has a dash of its own.

const FIGURES = 'attempts success clientError serverError timeout network brokerRefused interrupted p50Ms p99Ms';
const STATS = `query WebhookStats($id: ID!, $bucket: StatsBucket, $from: String) {
  webhookStats(id: $id, bucket: $bucket, from: $from) {
    bucket from to timeZone waiting totals { ${FIGURES} successRate failed } points { at ${FIGURES} } } }`;

interface Figures {
  attempts: number;
  success: number;
  clientError: number;
  serverError: number;
  timeout: number;
  network: number;
  brokerRefused: number;
  interrupted: number;
  p50Ms: number | null;
  p99Ms: number | null;
}
export interface Stats {
  bucket: string;
  from: string;
  to: string;
  timeZone: string;
  waiting: number;
  totals: Figures & { successRate: number | null; failed: number };
  points: Array<Figures & { at: string }>;
}

/** Outcomes, each with a colour of the Okabe–Ito palette (told apart with colour blindness) and a dash of its own. */
const OUTCOMES: Array<Line<Exclude<keyof Figures, 'p50Ms' | 'p99Ms'>>> = [
  { key: 'success', label: 'Succeeded', stroke: '#009E73', dash: [] },
  { key: 'clientError', label: 'Refused (4xx)', stroke: '#E69F00', dash: [6, 3] },
  { key: 'serverError', label: 'Server error (5xx)', stroke: '#D55E00', dash: [2, 2] },
  { key: 'timeout', label: 'Timed out', stroke: '#CC79A7', dash: [10, 3, 2, 3] },
  { key: 'network', label: 'Connection failed', stroke: '#0072B2', dash: [1, 3] },
  { key: 'brokerRefused', label: 'Broker refused', stroke: '#56B4E9', dash: [12, 6] },
  { key: 'interrupted', label: 'Interrupted', stroke: '#000000', dash: [4, 8] },
];
const TIMES: Array<Line<'p50Ms' | 'p99Ms'>> = [
  { key: 'p50Ms', label: 'Median answer (ms)', stroke: '#0072B2', dash: [] },
  { key: 'p99Ms', label: '99th percentile answer (ms)', stroke: '#D55E00', dash: [6, 3] },
];

const REFRESH_MS = 30_000;

export function HealthPanel(props: { webhookId: number }) {
  const [window_, setWindow] = useState(1);
  const [stats, setStats] = useState<Stats | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const load = async () => {
    const chosen = WINDOWS[window_];
    try {
      const from = new Date(Date.now() - chosen.ms).toISOString();
      const data = await gql<{ webhookStats: Stats }>(STATS, {
        id: String(props.webhookId),
        bucket: chosen.bucket,
        from,
      });
      setStats(data.webhookStats);
      setError(null);
    } catch (caught) {
      setError(asApiError(caught));
    }
  };
  useEffect(() => {
    setStats(null);
    void load();
  }, [props.webhookId, window_]);
  useInterval(() => void load(), REFRESH_MS, true);

  return (
    <section aria-labelledby="health-title" class="health">
      <div class="title-row">
        <h2 id="health-title">Health</h2>
        <WindowSelect value={window_} onChange={setWindow} />
      </div>
      <ErrorBanner error={error} />
      {!stats ? (
        <Loading what="the webhook's health" />
      ) : stats.totals.attempts === 0 ? (
        <p class="empty">No attempts in this window.{stats.waiting > 0 ? ` ${stats.waiting} waiting.` : ''}</p>
      ) : (
        <>
          <p>{summary(stats)}</p>
          <StatsChart
            title="Attempts by outcome"
            unit="attempts"
            points={stats.points}
            timeZone={stats.timeZone}
            series={OUTCOMES.filter((o) => stats.totals[o.key] !== 0)}
            describe={`${stats.totals.attempts} attempts, ${stats.totals.success} succeeded`}
          />
          <StatsChart
            title="Answer time"
            unit="ms"
            points={stats.points}
            timeZone={stats.timeZone}
            series={TIMES}
            describe={`median ${stats.totals.p50Ms} ms, 99th percentile ${stats.totals.p99Ms} ms`}
          />
        </>
      )}
    </section>
  );
}

function summary(stats: Stats): string {
  const { totals } = stats;
  const rate = totals.successRate === null ? '' : `${Math.round(totals.successRate * 1000) / 10} % succeeded, `;
  return (
    `${totals.attempts} attempts: ${rate}median answer ${totals.p50Ms} ms, 99th percentile ${totals.p99Ms} ms; ` +
    `${totals.failed} deliveries failed, ${stats.waiting} waiting.`
  );
}
