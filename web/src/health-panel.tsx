import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { type ApiError, gql } from './api';
import { asApiError } from './delivery-log';
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

const WINDOWS = [
  { label: 'Last hour, by minute', bucket: 'minute', ms: 3_600_000 },
  { label: 'Last day, by hour', bucket: 'hour', ms: 86_400_000 },
  { label: 'Last 30 days, by day', bucket: 'day', ms: 30 * 86_400_000 },
] as const;

/** Outcomes, each with a colour of the Okabe–Ito palette (told apart with colour blindness) and a dash of its own. */
const OUTCOMES: Array<{ key: keyof Figures; label: string; stroke: string; dash: number[] }> = [
  { key: 'success', label: 'Succeeded', stroke: '#009E73', dash: [] },
  { key: 'clientError', label: 'Refused (4xx)', stroke: '#E69F00', dash: [6, 3] },
  { key: 'serverError', label: 'Server error (5xx)', stroke: '#D55E00', dash: [2, 2] },
  { key: 'timeout', label: 'Timed out', stroke: '#CC79A7', dash: [10, 3, 2, 3] },
  { key: 'network', label: 'Connection failed', stroke: '#0072B2', dash: [1, 3] },
  { key: 'brokerRefused', label: 'Broker refused', stroke: '#56B4E9', dash: [12, 6] },
  { key: 'interrupted', label: 'Interrupted', stroke: '#000000', dash: [4, 8] },
];
const TIMES: Array<{ key: 'p50Ms' | 'p99Ms'; label: string; stroke: string; dash: number[] }> = [
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
        <label>
          Window{' '}
          <select value={window_} onChange={(e) => setWindow(Number((e.target as HTMLSelectElement).value))}>
            {WINDOWS.map((w, i) => (
              <option value={i} key={w.bucket}>
                {w.label}
              </option>
            ))}
          </select>
        </label>
      </div>
      <ErrorBanner error={error} />
      {!stats ? (
        <Loading what="the webhook's health" />
      ) : stats.totals.attempts === 0 ? (
        <p class="empty">No attempts in this window.{stats.waiting > 0 ? ` ${stats.waiting} waiting.` : ''}</p>
      ) : (
        <>
          <p>{summary(stats)}</p>
          <Chart
            title="Attempts by outcome"
            stats={stats}
            series={OUTCOMES.filter((o) => stats.totals[o.key] !== 0)}
            describe={(s) => `${s.totals.attempts} attempts, ${s.totals.success} succeeded`}
          />
          <Chart
            title="Answer time"
            stats={stats}
            series={TIMES}
            describe={(s) => `median ${s.totals.p50Ms} ms, 99th percentile ${s.totals.p99Ms} ms`}
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

function Chart(props: {
  title: string;
  stats: Stats;
  series: Array<{ key: keyof Figures; label: string; stroke: string; dash: number[] }>;
  describe: (stats: Stats) => string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const { stats, series } = props;
  useEffect(() => {
    if (!box.current) return;
    const data: uPlot.AlignedData = [
      stats.points.map((p) => Date.parse(p.at) / 1000),
      ...series.map((s) => stats.points.map((p) => p[s.key] as number | null)),
    ];
    const plot = new uPlot(
      {
        width: Math.max(320, box.current.clientWidth),
        height: 220,
        series: [{}, ...series.map((s) => ({ label: s.label, stroke: s.stroke, dash: s.dash, width: 2 }))],
        axes: [{}, { label: props.title === 'Answer time' ? 'ms' : 'attempts' }],
        legend: { live: false },
      },
      data,
      box.current,
    );
    // What the chart holds, for anyone (and any test) reading the page: the points it draws.
    (box.current as HTMLDivElement & { chartData?: uPlot.AlignedData }).chartData = data;
    return () => plot.destroy();
  }, [stats, series.map((s) => s.key).join()]);
  const id = `chart-${props.title.replace(/\W+/g, '-').toLowerCase()}`;
  return (
    <figure aria-labelledby={id}>
      <figcaption id={id}>
        {props.title}: {props.describe(stats)}
      </figcaption>
      <div
        ref={box}
        role="img"
        aria-label={`${props.title}: ${props.describe(stats)}`}
        data-points={stats.points.length}
      />
      <details>
        <summary>The numbers</summary>
        <table>
          <thead>
            <tr>
              <th scope="col">From</th>
              {series.map((s) => (
                <th scope="col" key={s.key}>
                  {s.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {stats.points.map((p) => (
              <tr key={p.at}>
                <td>{new Date(p.at).toLocaleString(undefined, { timeZone: stats.timeZone })}</td>
                {series.map((s) => (
                  <td key={s.key}>{p[s.key] ?? '—'}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
