import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import { gql } from './api';
import type { Webhook } from './webhook-form';

// Each webhook's health at a glance in the list of Setup > Webhooks: its success rate over the last day, a small
// trend of its hourly attempts (uPlot, as the webhook's own page draws it: health-panel.tsx), and its concurrency now
// or the pause a Retry-After asked for. One query for the page's webhooks (an alias each).

export interface Glance {
  totals: { attempts: number; successRate: number | null };
  points: Array<{ attempts: number; success: number }>;
}

const FIELDS = 'totals { attempts successRate } points { attempts success }';

/** The last day of each webhook of the page, by id; an empty map while it loads or when it cannot be read. */
export function useGlances(webhooks: Webhook[] | undefined): Map<number, Glance> {
  const [glances, setGlances] = useState(new Map<number, Glance>());
  const ids = (webhooks ?? []).map((w) => w.id);
  useEffect(() => {
    if (ids.length === 0) return;
    const from = new Date(Date.now() - 86_400_000).toISOString();
    const query = `query Glances($from: String) { ${ids
      .map((id) => `w${id}: webhookStats(id: "${id}", bucket: hour, from: $from) { ${FIELDS} }`)
      .join(' ')} }`;
    gql<Record<string, Glance>>(query, { from })
      .then((data) => setGlances(new Map(ids.map((id) => [id, data[`w${id}`]]))))
      .catch(() => setGlances(new Map()));
  }, [ids.join()]);
  return glances;
}

/** A webhook's success rate and trend; its concurrency, or its pause. */
export function HealthGlance(props: { webhook: Webhook; glance: Glance | undefined }) {
  const { webhook, glance } = props;
  const paused = webhook.pausedUntil && Date.parse(webhook.pausedUntil) > Date.now();
  const state = paused ? 'paused (Retry-After)' : `${webhook.concurrency} at once`;
  if (!glance) return <span class="sub">{state}</span>;
  const rate =
    glance.totals.successRate === null
      ? 'no attempts in the last day'
      : `${Math.round(glance.totals.successRate * 1000) / 10} % of ${glance.totals.attempts} succeeded`;
  return (
    <div class="glance">
      <span>{rate}</span>
      {glance.totals.attempts > 0 && (
        <Trend points={glance.points} label={`Hourly attempts of webhook ${webhook.id}`} />
      )}
      <span class="sub">{state}</span>
    </div>
  );
}

function Trend(props: { points: Glance['points']; label: string }) {
  const box = useRef<HTMLSpanElement>(null);
  useEffect(() => {
    if (!box.current) return;
    const x = props.points.map((_, i) => i);
    const data: uPlot.AlignedData = [x, props.points.map((p) => p.attempts), props.points.map((p) => p.success)];
    const plot = new uPlot(
      {
        width: 96,
        height: 24,
        legend: { show: false },
        cursor: { show: false },
        axes: [{ show: false }, { show: false }],
        scales: { x: { time: false } },
        series: [{}, { stroke: '#6b7280', width: 1 }, { stroke: '#009E73', width: 1, dash: [3, 2] }],
      },
      data,
      box.current,
    );
    (box.current as HTMLSpanElement & { chartData?: uPlot.AlignedData }).chartData = data;
    return () => plot.destroy();
  }, [props.points]);
  const total = props.points.reduce((n, p) => n + p.attempts, 0);
  return <span ref={box} class="trend" role="img" aria-label={`${props.label}: ${total} in the last day`} data-trend />;
}
