import { useEffect, useState } from 'preact/hooks';
import { gql } from './api';
import { useInterval } from './ui';

// A recover or a replay of many deliveries, followed until they are sent: a progress bar from the deliveries the
// webhook has waiting (its health's `waiting`), against what waited before the action. It ends when the count is
// back where it was, or after ten minutes.

const WAITING = 'query Waiting($id: ID!) { webhookStats(id: $id, bucket: minute) { waiting } }';
const POLL_MS = 1000;
const GIVE_UP_MS = 600_000;

export const waitingOf = async (webhookId: number): Promise<number> =>
  (await gql<{ webhookStats: { waiting: number } }>(WAITING, { id: String(webhookId) })).webhookStats.waiting;

/** What a recover or replay started: how many deliveries, and how many were waiting before it. */
export interface Sending {
  total: number;
  before: number;
  startedAt: number;
}

export function SendingProgress(props: { webhookId: number; sending: Sending | null; what: string }) {
  const [sent, setSent] = useState(0);
  const { sending } = props;
  useEffect(() => setSent(0), [sending]);
  const done = !sending || sent >= sending.total || Date.now() - sending.startedAt > GIVE_UP_MS;
  useInterval(
    async () => {
      if (!sending) return;
      const waiting = await waitingOf(props.webhookId).catch(() => null);
      if (waiting !== null) setSent(Math.min(sending.total, Math.max(0, sending.total - (waiting - sending.before))));
    },
    POLL_MS,
    !done,
  );
  if (!sending || sending.total === 0) return null;
  return (
    <div class="sending" role="status">
      <label>
        {sent >= sending.total
          ? `${props.what}: all ${sending.total} sent.`
          : `${props.what}: ${sent} of ${sending.total} sent`}{' '}
        <progress max={sending.total} value={sent} />
      </label>
    </div>
  );
}
