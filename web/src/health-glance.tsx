import { useEffect, useState } from 'preact/hooks';
import { gql } from './api';
import { Trend } from './stats-chart';
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
        <Trend
          all={glance.points.map((p) => p.attempts)}
          good={glance.points.map((p) => p.success)}
          label={`Hourly attempts of webhook ${webhook.id}`}
        />
      )}
      <span class="sub">{state}</span>
    </div>
  );
}
