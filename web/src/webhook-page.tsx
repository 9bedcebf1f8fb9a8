import { useEffect, useState } from 'preact/hooks';
import { ApiError, gql } from './api';
import { Dialog, ErrorBanner, Notice, FieldError, Loading, Pager, type PageInfo, useInterval, useTime, When } from './ui';
import { SecretBox, WEBHOOK_FIELDS, type Webhook, WebhookForm } from './webhook-form';
import { State } from './webhooks-page';

// One webhook: its settings, state, secret, a test send, and the delivery log
// with every attempt, resend and recovery.

interface Attempt {
  number: number;
  attemptedAt: string;
  statusCode: number | null;
  durationMs: number | null;
  responseBody: string | null;
  error: string | null;
  trigger: string;
}

interface Delivery {
  id: string;
  event: string;
  status: string;
  attemptCount: number;
  lastStatusCode: number | null;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
  payload?: string | null;
  attempts?: Attempt[] | null;
}

const DELIVERY_FIELDS = 'id event status attemptCount lastStatusCode lastAttemptAt nextAttemptAt createdAt';
const WEBHOOK = `query Webhook($id: ID!) { webhook(id: $id) { ${WEBHOOK_FIELDS} } }`;
const DELIVERIES = `query Deliveries($id: ID!, $status: String, $page: Int) {
  webhookDeliveries(id: $id, status: $status, page: $page, perPage: 10) { records { ${DELIVERY_FIELDS} } pagination { currentPage lastPage total from to } }
}`;
const ATTEMPTS = 'attempts { number attemptedAt statusCode durationMs responseBody error trigger }';
const DELIVERY = `query Delivery($id: ID!) { webhookDelivery(id: $id) { ${DELIVERY_FIELDS} payload ${ATTEMPTS} } }`;
const SECRET = `query Secret($id: ID!) { webhookSecret(id: $id) { secret previousSecretExpiresAt } }`;
const ROTATE = `mutation Rotate($id: ID!) { rotateWebhookSecret(id: $id) { secret previousSecretExpiresAt } }`;
const TEST = `mutation Test($id: ID!, $event: String) { testWebhook(id: $id, event: $event) { ${DELIVERY_FIELDS} ${ATTEMPTS} } }`;
const RESEND = `mutation Resend($id: ID!) { resendWebhookDelivery(id: $id) { ${DELIVERY_FIELDS} } }`;
const RECOVER = `mutation Recover($id: ID!, $since: String!) { recoverWebhookDeliveries(id: $id, since: $since) { count } }`;
const SET_ACTIVE = `mutation SetActive($id: ID!, $active: Boolean!) { updateWebhook(id: $id, input: { active: $active }) { ${WEBHOOK_FIELDS} } }`;

const REASONS: Record<string, string> = {
  gone: 'The service switched this webhook off because its URL answered 410 Gone.',
  failing: 'The service switched this webhook off because every delivery to its URL failed for too long.',
};

const asApiError = (caught: unknown) => (caught instanceof ApiError ? caught : new ApiError(String(caught), 'ERROR'));

export function WebhookPage(props: { id: number; canManage: boolean }) {
  const time = useTime();
  const [webhook, setWebhook] = useState<Webhook | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [editing, setEditing] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [logVersion, setLogVersion] = useState(0);

  const load = async () => {
    try {
      setWebhook((await gql<{ webhook: Webhook }>(WEBHOOK, { id: String(props.id) })).webhook);
    } catch (caught) {
      setError(asApiError(caught));
    }
  };
  useEffect(() => {
    void load();
  }, [props.id]);

  const setActive = async (active: boolean) => {
    try {
      const data = await gql<{ updateWebhook: Webhook }>(SET_ACTIVE, { id: String(props.id), active });
      setWebhook(data.updateWebhook);
      setNotice(active ? 'The webhook is active: new events are delivered to its URL.' : 'The webhook is inactive: no new events are delivered.');
    } catch (caught) {
      setError(asApiError(caught));
    }
  };

  if (!webhook) {
    return (
      <section>
        <p>
          <a href="#/setup/webhooks">‹ All webhooks</a>
        </p>
        {error ? <ErrorBanner error={error} /> : <Loading what="the webhook" />}
      </section>
    );
  }

  return (
    <section aria-labelledby="webhook-title">
      <p>
        <a href="#/setup/webhooks">‹ All webhooks</a>
      </p>
      <div class="title-row">
        <h1 id="webhook-title">
          #{webhook.id} {webhook.title}
        </h1>
        <State webhook={webhook} />
        {props.canManage && (
          <span class="buttons">
            <button type="button" onClick={() => setEditing(true)}>
              Edit
            </button>
            <button type="button" onClick={() => setActive(!webhook.active)}>
              {webhook.active ? 'Deactivate' : 'Activate'}
            </button>
          </span>
        )}
      </div>
      <Notice text={notice} />
      <ErrorBanner error={error} />
      {!webhook.active && webhook.disabledReason && (
        <div class="banner warn" role="status">
          <p>{REASONS[webhook.disabledReason] ?? `The service switched this webhook off (${webhook.disabledReason}).`} Fix the receiver, then activate it again.</p>
          {props.canManage && (
            <button type="button" class="primary" onClick={() => setActive(true)}>
              Activate again
            </button>
          )}
        </div>
      )}
      <dl class="facts">
        <dt>URL</dt>
        <dd class="mono">{webhook.url}</dd>
        <dt>Method</dt>
        <dd>{webhook.method}</dd>
        <dt>Events</dt>
        <dd>{webhook.events.join(', ')}</dd>
        <dt>List selection</dt>
        <dd>
          {webhook.listSelection}: {webhook.formData.join(', ')}
        </dd>
        <dt>Hits</dt>
        <dd>{webhook.hits}</dd>
        <dt>Last Hit</dt>
        <dd><When iso={webhook.lastHit} /></dd>
        <dt>Concurrency</dt>
        <dd title="Attempts in flight at once: it grows while the endpoint answers 2xx fast and halves on a timeout, 429 or 5xx.">
          {webhook.concurrency} at once{webhook.pausedUntil ? `, paused until ${time(webhook.pausedUntil)} (the receiver's Retry-After)` : ''}
        </dd>
        <dt>Rate limit</dt>
        <dd>{webhook.rateLimit ? `${webhook.rateLimit} per second` : 'None'}</dd>
        <dt>Created At</dt>
        <dd><When iso={webhook.createdAt} /></dd>
      </dl>

      {props.canManage && <SecretPanel id={webhook.id} />}
      {props.canManage && <TestPanel webhook={webhook} onSent={() => setLogVersion((v) => v + 1)} />}
      <DeliveryLog webhookId={webhook.id} canManage={props.canManage} version={logVersion} onChange={load} />

      {editing && (
        <WebhookForm
          webhook={webhook}
          onClose={() => setEditing(false)}
          onSaved={(saved) => {
            setWebhook(saved);
            setEditing(false);
            setNotice('The webhook was saved.');
          }}
        />
      )}
    </section>
  );
}

function SecretPanel(props: { id: number }) {
  const time = useTime();
  const [secret, setSecret] = useState<{ secret: string; previousSecretExpiresAt: string | null } | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const reveal = async () => {
    try {
      setSecret((await gql<{ webhookSecret: typeof secret }>(SECRET, { id: String(props.id) })).webhookSecret);
    } catch (caught) {
      setError(asApiError(caught));
    }
  };
  const rotate = async () => {
    setConfirming(false);
    try {
      setSecret((await gql<{ rotateWebhookSecret: typeof secret }>(ROTATE, { id: String(props.id) })).rotateWebhookSecret);
    } catch (caught) {
      setError(asApiError(caught));
    }
  };
  return (
    <section class="panel" aria-labelledby="secret-title">
      <h2 id="secret-title">Signing secret</h2>
      <ErrorBanner error={error} />
      {secret ? (
        <SecretBox
          labelHidden
          secret={secret.secret}
          note={secret.previousSecretExpiresAt ? `The previous secret also signs deliveries until ${time(secret.previousSecretExpiresAt)}.` : undefined}
        />
      ) : (
        <button type="button" onClick={reveal}>
          Reveal secret
        </button>
      )}
      <button type="button" onClick={() => setConfirming(true)}>
        Rotate secret
      </button>
      {confirming && (
        <Dialog title="Rotate the signing secret?" onClose={() => setConfirming(false)}>
          <p>A new secret signs every delivery from now on. The current one keeps signing alongside it for a grace period, so receivers can switch without losing a delivery.</p>
          <footer class="actions">
            <button type="button" onClick={() => setConfirming(false)}>
              Cancel
            </button>
            <button type="button" class="primary" onClick={rotate}>
              Rotate secret
            </button>
          </footer>
        </Dialog>
      )}
    </section>
  );
}

function TestPanel(props: { webhook: Webhook; onSent: () => void }) {
  const [event, setEvent] = useState(props.webhook.events[0] ?? '');
  const [result, setResult] = useState<Delivery | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const send = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      setResult((await gql<{ testWebhook: Delivery }>(TEST, { id: String(props.webhook.id), event: event || null })).testWebhook);
      props.onSent();
    } catch (caught) {
      setError(asApiError(caught));
    } finally {
      setBusy(false);
    }
  };
  // The result arrives with the first attempt: follow the delivery (with its attempts, for the reason) until it has one.
  useInterval(
    async () => {
      if (!result) return;
      const fresh = (await gql<{ webhookDelivery: Delivery }>(DELIVERY, { id: result.id })).webhookDelivery;
      setResult(fresh);
    },
    1000,
    !!result && result.attemptCount === 0 && result.status === 'pending',
  );
  const last = result?.attempts?.[result.attempts.length - 1];
  return (
    <section class="panel" aria-labelledby="test-title">
      <h2 id="test-title">Send a test event</h2>
      <form class="row" onSubmit={send}>
        <label for="test-event">Event</label>
        <select id="test-event" value={event} onChange={(e) => setEvent(e.currentTarget.value)} aria-describedby="test-event-error">
          {props.webhook.events.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
        <button type="submit" disabled={busy}>
          Send test
        </button>
      </form>
      <FieldError id="test-event-error" error={error} field="event" />
      <ErrorBanner error={error} fields={['event']} />
      {result && (
        <p class="test-result" role="status">
          {result.attemptCount === 0 && result.status === 'pending'
            ? `Test ${result.event} (${result.id}) is being sent…`
            : `Test ${result.event} (${result.id}): ${result.status}${result.lastStatusCode ? `, HTTP ${result.lastStatusCode}` : ', no response'}${result.status === 'succeeded' ? '' : failureReason(last)}.`}
          {result.status === 'pending' && result.nextAttemptAt && (
            <span class="sub">
              {' '}
              The next attempt is at <When iso={result.nextAttemptAt} />.
            </span>
          )}
        </p>
      )}
    </section>
  );
}

/** Why an attempt failed, in a few words: the connection's error, or the start of what the receiver answered. */
function failureReason(attempt: Attempt | undefined): string {
  const text = (attempt?.error ?? attempt?.responseBody ?? '').replace(/\s+/g, ' ').trim();
  if (!text) return '';
  return attempt?.error ? `: ${text.length > 140 ? `${text.slice(0, 140)}…` : text}` : `: “${text.length > 140 ? `${text.slice(0, 140)}…` : text}”`;
}

const STATUSES = ['pending', 'succeeded', 'failed', 'cancelled'];

function DeliveryLog(props: { webhookId: number; canManage: boolean; version: number; onChange: () => void }) {
  const [status, setStatus] = useState('');
  const [page, setPage] = useState(1);
  const [data, setData] = useState<{ records: Delivery[]; pagination: PageInfo } | null>(null);
  const [open, setOpen] = useState<Delivery | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [since, setSince] = useState('');

  const load = async () => {
    try {
      const result = await gql<{ webhookDeliveries: { records: Delivery[]; pagination: PageInfo } }>(DELIVERIES, { id: String(props.webhookId), status: status || null, page });
      setData(result.webhookDeliveries);
      // Attempts change the webhook's Hits and Last Hit: it is read again with its log.
      props.onChange();
      if (open) setOpen((await gql<{ webhookDelivery: Delivery }>(DELIVERY, { id: open.id })).webhookDelivery);
    } catch (caught) {
      setError(asApiError(caught));
    }
  };
  useEffect(() => {
    void load();
  }, [status, page, props.version]);
  // While anything is pending the log follows it.
  const pending = !!data?.records.some((d) => d.status === 'pending') || open?.status === 'pending';
  useInterval(() => void load(), 2000, pending);

  const show = async (delivery: Delivery) => {
    if (open?.id === delivery.id) return setOpen(null);
    try {
      setOpen((await gql<{ webhookDelivery: Delivery }>(DELIVERY, { id: delivery.id })).webhookDelivery);
    } catch (caught) {
      setError(asApiError(caught));
    }
  };
  const resend = async (delivery: Delivery) => {
    setError(null);
    try {
      await gql(RESEND, { id: delivery.id });
      setNotice(`Delivery ${delivery.id} is being sent again.`);
      void load();
    } catch (caught) {
      setError(asApiError(caught));
    }
  };
  const recover = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      const sinceIso = since ? new Date(since).toISOString() : '';
      const { recoverWebhookDeliveries } = await gql<{ recoverWebhookDeliveries: { count: number } }>(RECOVER, { id: String(props.webhookId), since: sinceIso });
      setNotice(`${recoverWebhookDeliveries.count} failed ${recoverWebhookDeliveries.count === 1 ? 'delivery is' : 'deliveries are'} being sent again.`);
      void load();
    } catch (caught) {
      setError(asApiError(caught));
    }
  };

  return (
    <section class="panel" aria-labelledby="log-title">
      <h2 id="log-title">Delivery log</h2>
      <div class="row wrap">
        <label for="log-status">Status</label>
        <select
          id="log-status"
          value={status}
          onChange={(e) => {
            setPage(1);
            setStatus(e.currentTarget.value);
          }}
        >
          <option value="">All</option>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
        {props.canManage && (
          <form class="row" onSubmit={recover}>
            <label for="recover-since">Recover failed since</label>
            <input id="recover-since" type="datetime-local" value={since} onInput={(e) => setSince(e.currentTarget.value)} aria-describedby="recover-since-error" />
            <button type="submit">Recover</button>
          </form>
        )}
      </div>
      <FieldError id="recover-since-error" error={error} field="since" />
      <Notice text={notice} />
      <ErrorBanner error={error} fields={['since']} />
      {!data ? (
        <Loading what="deliveries" />
      ) : data.records.length === 0 ? (
        <p class="empty">{status ? `No ${status} deliveries.` : 'No deliveries yet. Send a test event to see one here.'}</p>
      ) : (
        <div class="table-wrap">
          <table class="log">
            <caption class="sr-only">Deliveries, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Created</th>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last response</th>
                <th scope="col">Next attempt</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {data.records.map((delivery) => (
                <tr key={delivery.id} class={open?.id === delivery.id ? 'selected' : undefined}>
                  <td data-label="Created"><When iso={delivery.createdAt} /></td>
                  <td data-label="Event">{delivery.event}</td>
                  <td data-label="Status">
                    <span class={`pill ${delivery.status === 'succeeded' ? 'ok' : delivery.status === 'failed' ? 'bad' : ''}`}>{delivery.status}</span>
                  </td>
                  <td data-label="Attempts">{delivery.attemptCount}</td>
                  <td data-label="Last response">{delivery.lastStatusCode ?? '—'}</td>
                  <td data-label="Next attempt"><When iso={delivery.nextAttemptAt} /></td>
                  <td data-label="Actions">
                    <span class="buttons">
                    <button type="button" aria-expanded={open?.id === delivery.id} aria-controls="delivery-detail" onClick={() => show(delivery)} aria-label={`Details of delivery ${delivery.id}`}>
                      Details
                    </button>
                    {props.canManage && (
                      <button type="button" disabled={delivery.status === 'pending'} onClick={() => resend(delivery)} aria-label={`Resend delivery ${delivery.id}`}>
                        Resend
                      </button>
                    )}
                    </span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {data && data.pagination.total > 0 && <Pager page={data.pagination} label="Deliveries" onPage={setPage} />}
      {open && <DeliveryDetail delivery={open} />}
    </section>
  );
}

function DeliveryDetail(props: { delivery: Delivery }) {
  const { delivery } = props;
  let payload = delivery.payload ?? '';
  try {
    payload = JSON.stringify(JSON.parse(payload), null, 2);
  } catch {
    // shown as sent
  }
  return (
    <article id="delivery-detail" class="detail" aria-labelledby="delivery-title">
      <h3 id="delivery-title">
        Delivery <span class="mono">{delivery.id}</span> ({delivery.event}, {delivery.status})
      </h3>
      <h4>Payload</h4>
      <pre class="payload" tabIndex={0} aria-label="Payload">
        {payload}
      </pre>
      <h4>Attempts</h4>
      {(delivery.attempts ?? []).length === 0 ? (
        <p class="empty">No attempt yet.</p>
      ) : (
        <div class="table-wrap">
          <table class="attempts">
            <caption class="sr-only">Attempts of delivery {delivery.id}</caption>
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">Time</th>
                <th scope="col">Status code</th>
                <th scope="col">Duration</th>
                <th scope="col">Response</th>
                <th scope="col">Error</th>
              </tr>
            </thead>
            <tbody>
              {delivery.attempts!.map((attempt) => (
                <tr key={attempt.number}>
                  <td data-label="#">
                    {attempt.number}
                    {attempt.trigger === 'manual' ? ' (manual)' : ''}
                  </td>
                  <td data-label="Time"><When iso={attempt.attemptedAt} /></td>
                  <td data-label="Status code">{attempt.statusCode ?? 'none'}</td>
                  <td data-label="Duration">{attempt.durationMs === null ? '—' : `${attempt.durationMs} ms`}</td>
                  <td data-label="Response" class="mono excerpt">
                    {attempt.responseBody ?? ''}
                  </td>
                  <td data-label="Error">{attempt.error ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </article>
  );
}
