import { useEffect, useState } from 'preact/hooks';
import { type ApiError, gql } from './api';
import { asApiError } from './delivery-log';
import { type Line, StatsChart, Trend, WINDOWS, WindowSelect } from './stats-chart';
import { ErrorBanner, Loading, useInterval } from './ui';

// A decision endpoint's or an agent tool's health (docs/call-routing.md, Endpoint health): its answers by outcome and
// its two times, the time Switchboard added and the endpoint's own, over a chosen window; and each one's last day at a
// glance in the lists of Setup > Call routing. Drawn as a webhook's health is (stats-chart.tsx).

export type CallPathKind = 'decision' | 'tool';

const QUERY: Record<CallPathKind, string> = { decision: 'decisionEndpointStats', tool: 'agentToolStats' };
const OUTCOME_FIELDS = 'questions answered timeout error invalid unreachable breakerOpen';
const TIME_FIELDS = 'addedP50Ms addedP99Ms endpointP50Ms endpointP99Ms';

type Outcome = 'answered' | 'timeout' | 'error' | 'invalid' | 'unreachable' | 'breakerOpen';
type Time = 'addedP50Ms' | 'addedP99Ms' | 'endpointP50Ms' | 'endpointP99Ms';
type Figures = Record<Outcome | 'questions', number> & Record<Time, number | null>;
interface Stats {
  timeZone: string;
  totals: Figures & { answerRate: number | null; breakerOpenings: number; hedged: number };
  points: Array<Figures & { at: string }>;
}

/** Outcomes, each with a colour of the Okabe–Ito palette and a dash of its own. */
const OUTCOMES: Array<Line<Outcome>> = [
  { key: 'answered', label: 'Answered', stroke: '#009E73', dash: [] },
  { key: 'timeout', label: 'Fallback: timed out', stroke: '#CC79A7', dash: [10, 3, 2, 3] },
  { key: 'error', label: 'Fallback: error status', stroke: '#D55E00', dash: [2, 2] },
  { key: 'invalid', label: 'Fallback: answer not taken', stroke: '#E69F00', dash: [6, 3] },
  { key: 'unreachable', label: 'Fallback: unreachable', stroke: '#0072B2', dash: [1, 3] },
  { key: 'breakerOpen', label: 'Fallback: breaker open', stroke: '#000000', dash: [4, 8] },
];
const TIMES: Array<Line<Time>> = [
  { key: 'addedP50Ms', label: 'Switchboard, median (ms)', stroke: '#009E73', dash: [] },
  { key: 'addedP99Ms', label: 'Switchboard, 99th percentile (ms)', stroke: '#009E73', dash: [6, 3] },
  { key: 'endpointP50Ms', label: 'Endpoint, median (ms)', stroke: '#0072B2', dash: [] },
  { key: 'endpointP99Ms', label: 'Endpoint, 99th percentile (ms)', stroke: '#0072B2', dash: [6, 3] },
];

const REFRESH_MS = 30_000;

export function CallPathHealthPanel(props: { kind: CallPathKind; id: string; name: string }) {
  const [window_, setWindow] = useState(1);
  const [stats, setStats] = useState<Stats | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const field = QUERY[props.kind];
  const load = async () => {
    const chosen = WINDOWS[window_];
    try {
      const data = await gql<Record<string, Stats>>(
        `query CallPathStats($id: ID!, $bucket: StatsBucket, $from: String) {
          ${field}(id: $id, bucket: $bucket, from: $from) { timeZone
            totals { ${OUTCOME_FIELDS} ${TIME_FIELDS} answerRate breakerOpenings hedged }
            points { at ${OUTCOME_FIELDS} ${TIME_FIELDS} } } }`,
        { id: props.id, bucket: chosen.bucket, from: new Date(Date.now() - chosen.ms).toISOString() },
      );
      setStats(data[field]);
      setError(null);
    } catch (caught) {
      setError(asApiError(caught));
    }
  };
  useEffect(() => {
    setStats(null);
    void load();
  }, [props.kind, props.id, window_]);
  useInterval(() => void load(), REFRESH_MS, true);
  const titleId = `health-${props.kind}-${props.id}`;
  return (
    <section aria-labelledby={titleId} class="health">
      <div class="title-row">
        <h2 id={titleId}>Health of {props.name}</h2>
        <WindowSelect value={window_} onChange={setWindow} />
      </div>
      <ErrorBanner error={error} />
      {!stats ? (
        <Loading what={`the health of ${props.name}`} />
      ) : stats.totals.questions === 0 ? (
        <p class="empty">No questions in this window.</p>
      ) : (
        <>
          <p>{summary(stats)}</p>
          <StatsChart
            title="Answers by outcome"
            unit="questions"
            points={stats.points}
            timeZone={stats.timeZone}
            series={OUTCOMES.filter((o) => stats.totals[o.key] !== 0)}
            describe={`${stats.totals.questions} questions, ${stats.totals.answered} answered`}
          />
          <StatsChart
            title="Time"
            unit="ms"
            points={stats.points}
            timeZone={stats.timeZone}
            series={TIMES}
            describe={
              `Switchboard added a median ${stats.totals.addedP50Ms} ms (99th percentile ${stats.totals.addedP99Ms} ms); ` +
              `the endpoint took a median ${stats.totals.endpointP50Ms ?? '—'} ms (99th percentile ${stats.totals.endpointP99Ms ?? '—'} ms)`
            }
          />
        </>
      )}
    </section>
  );
}

function summary(stats: Stats): string {
  const { totals } = stats;
  const rate = totals.answerRate === null ? '' : `${Math.round(totals.answerRate * 1000) / 10} % answered, `;
  const fallbacks = totals.questions - totals.answered;
  return (
    `${totals.questions} questions: ${rate}${fallbacks} given the fallback; ` +
    `the breaker opened ${totals.breakerOpenings} times; ${totals.hedged} hedged.`
  );
}

/** One endpoint's or tool's last day: its answer rate and its hourly trend. */
export interface CallPathGlance {
  totals: { questions: number; answerRate: number | null; addedP99Ms: number | null };
  points: Array<{ questions: number; answered: number }>;
}

/** The last day of each of the ids, by id; an empty map while it loads or when it cannot be read. */
export function useCallPathGlances(kind: CallPathKind, ids: string[]): Map<string, CallPathGlance> {
  const [glances, setGlances] = useState(new Map<string, CallPathGlance>());
  useEffect(() => {
    if (ids.length === 0) return;
    const from = new Date(Date.now() - 86_400_000).toISOString();
    const query = `query CallPathGlances($from: String) { ${ids
      .map(
        (id, i) =>
          `g${i}: ${QUERY[kind]}(id: "${id}", bucket: hour, from: $from) { totals { questions answerRate addedP99Ms } points { questions answered } }`,
      )
      .join(' ')} }`;
    gql<Record<string, CallPathGlance>>(query, { from })
      .then((data) => setGlances(new Map(ids.map((id, i) => [id, data[`g${i}`]]))))
      .catch(() => setGlances(new Map()));
  }, [kind, ids.join()]);
  return glances;
}

/** An endpoint's or tool's answer rate over the last day and its hourly trend. */
export function CallPathGlanceCell(props: { glance: CallPathGlance | undefined; label: string }) {
  const { glance } = props;
  if (!glance) return <span class="sub">—</span>;
  if (glance.totals.answerRate === null) return <span class="sub">no questions in the last day</span>;
  return (
    <div class="glance">
      <span>
        {Math.round(glance.totals.answerRate * 1000) / 10} % of {glance.totals.questions} answered
      </span>
      <Trend
        all={glance.points.map((p) => p.questions)}
        good={glance.points.map((p) => p.answered)}
        label={props.label}
      />
      <span class="sub">Switchboard’s 99th percentile: {glance.totals.addedP99Ms} ms</span>
    </div>
  );
}
