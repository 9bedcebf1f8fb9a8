import { useState } from 'preact/hooks';
import { ApiError, gql } from './api';
import { asApiError } from './delivery-log';
import { ErrorBanner, Notice } from './ui';
import { type Sending, SendingProgress, waitingOf } from './sending-progress';

// Replay missing: the events of the webhook's subscribed types that it never
// got a delivery of (it was inactive, or not subscribed to the type yet),
// counted first, then sent on confirmation in the order they happened.

const PREVIEW =
  'query ReplayPreview($id: ID!, $since: String!) { webhookReplayPreview(id: $id, since: $since) { count filtered } }';
const REPLAY =
  'mutation Replay($id: ID!, $since: String!, $until: String) { replayMissingWebhookEvents(id: $id, since: $since, until: $until) { count remaining } }';

const WINDOWS = [
  ['1', 'the last hour'],
  ['24', 'the last 24 hours'],
  ['168', 'the last 7 days'],
  ['720', 'the last 30 days'],
] as const;

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

export function ReplayPanel(props: { webhookId: number; active: boolean; onReplayed: () => void }) {
  const [hours, setHours] = useState('24');
  const [preview, setPreview] = useState<{ count: number; filtered: number; since: string; until: string } | null>(
    null,
  );
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);

  const count = async (e: Event) => {
    e.preventDefault();
    setNotice(null);
    setError(null);
    const until = new Date();
    const since = new Date(until.getTime() - Number(hours) * 3_600_000).toISOString();
    try {
      const { webhookReplayPreview } = await gql<{ webhookReplayPreview: { count: number; filtered: number } }>(
        PREVIEW,
        { id: String(props.webhookId), since },
      );
      setPreview({ ...webhookReplayPreview, since, until: until.toISOString() });
    } catch (caught) {
      setError(asApiError(caught));
    }
  };
  const [sending, setSending] = useState<Sending | null>(null);
  const replay = async () => {
    if (!preview) return;
    setBusy(true);
    try {
      const before = await waitingOf(props.webhookId);
      const { replayMissingWebhookEvents: sent } = await gql<{
        replayMissingWebhookEvents: { count: number; remaining: number };
      }>(REPLAY, { id: String(props.webhookId), since: preview.since, until: preview.until });
      setPreview(null);
      setSending({ total: sent.count, before, startedAt: Date.now() });
      setNotice(
        `${plural(sent.count, 'event')} ${sent.count === 1 ? 'is' : 'are'} being sent.` +
          (sent.remaining ? ` ${sent.remaining} more remain: replay again to send them.` : ''),
      );
      props.onReplayed();
    } catch (caught) {
      setError(asApiError(caught));
    } finally {
      setBusy(false);
    }
  };
  const window = WINDOWS.find(([value]) => value === hours)![1];

  return (
    <section class="panel" aria-labelledby="replay-title">
      <h2 id="replay-title">Replay missing events</h2>
      <p class="hint">
        Events of its subscribed types that this webhook never received (while it was inactive, or before it subscribed
        to them) are kept for 30 days and can be sent now, oldest first.
      </p>
      <form class="row" onSubmit={count}>
        <label for="replay-window">Missing in</label>
        <select id="replay-window" value={hours} onChange={(e) => (setHours(e.currentTarget.value), setPreview(null))}>
          {WINDOWS.map(([value, text]) => (
            <option key={value} value={value}>
              {text}
            </option>
          ))}
        </select>
        <button type="submit">Count missing events</button>
      </form>
      <ErrorBanner error={error} />
      <Notice text={notice} />
      <SendingProgress webhookId={props.webhookId} sending={sending} what="Replayed events" />
      {preview && (
        <div role="status">
          <p>
            {preview.count === 0
              ? `Nothing is missing in ${window}.`
              : `${plural(preview.count, 'event')} in ${window} ${preview.count === 1 ? 'was' : 'were'} never sent to this webhook.`}
            {preview.filtered > 0 &&
              ` ${plural(preview.filtered, 'more')} ${preview.filtered === 1 ? 'is' : 'are'} turned away by its filters.`}
          </p>
          {preview.count > 0 && (
            <button type="button" class="primary" disabled={busy || !props.active} onClick={replay}>
              Replay {plural(preview.count, 'event')}
            </button>
          )}
          {preview.count > 0 && !props.active && <p class="hint">Activate the webhook to replay them.</p>}
        </div>
      )}
    </section>
  );
}
