import { useEffect, useRef, useState } from 'preact/hooks';
import { type Sending, SendingProgress, waitingOf } from './sending-progress';
import { ApiError, gql } from './api';
import { ErrorBanner, Notice, FieldError, Loading, Pager, type PageInfo, TableHead, useInterval, When } from './ui';
import { DELIVERY_STATUSES, eventName } from './vocabulary.generated';

// A webhook's delivery log: filter by status, each delivery's payload and
// every attempt, resend one, recover the failed ones since a time.

export interface Attempt {
  number: number;
  attemptedAt: string;
  statusCode: number | null;
  durationMs: number | null;
  responseBody: string | null;
  error: string | null;
  trigger: string;
  /** The custom headers it sent, by name. */
  headers: string[];
}

export interface Delivery {
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

export const DELIVERY_FIELDS = 'id event status attemptCount lastStatusCode lastAttemptAt nextAttemptAt createdAt';
const DELIVERIES = `query Deliveries($id: ID!, $status: DeliveryStatus, $page: Int) {
  webhookDeliveries(id: $id, status: $status, page: $page, perPage: 10) { records { ${DELIVERY_FIELDS} } pagination { currentPage lastPage total from to } }
}`;
export const ATTEMPTS = 'attempts { number attemptedAt statusCode durationMs responseBody error trigger headers }';
export const DELIVERY = `query Delivery($id: ID!) { webhookDelivery(id: $id) { ${DELIVERY_FIELDS} payload ${ATTEMPTS} } }`;
const RESEND = `mutation Resend($id: ID!) { resendWebhookDelivery(id: $id) { ${DELIVERY_FIELDS} } }`;
const RECOVER = `mutation Recover($id: ID!, $since: String!) { recoverWebhookDeliveries(id: $id, since: $since) { count } }`;
export const asApiError = (caught: unknown) =>
  caught instanceof ApiError ? caught : new ApiError(String(caught), 'ERROR');

export function DeliveryLog(props: { webhookId: number; canManage: boolean; version: number; onChange: () => void }) {
  const [status, setStatus] = useState('');
  const [page, setPage] = useState(1);
  const [data, setData] = useState<{ records: Delivery[]; pagination: PageInfo } | null>(null);
  const [open, setOpen] = useState<Delivery | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [since, setSince] = useState('');

  const load = async () => {
    try {
      const result = await gql<{ webhookDeliveries: { records: Delivery[]; pagination: PageInfo } }>(DELIVERIES, {
        id: String(props.webhookId),
        status: status || null,
        page,
      });
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
  const [sending, setSending] = useState<Sending | null>(null);
  const recover = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      const sinceIso = since ? new Date(since).toISOString() : '';
      const before = await waitingOf(props.webhookId);
      const { recoverWebhookDeliveries } = await gql<{ recoverWebhookDeliveries: { count: number } }>(RECOVER, {
        id: String(props.webhookId),
        since: sinceIso,
      });
      setSending({ total: recoverWebhookDeliveries.count, before, startedAt: Date.now() });
      setNotice(
        `${recoverWebhookDeliveries.count} failed ${recoverWebhookDeliveries.count === 1 ? 'delivery is' : 'deliveries are'} being sent again.`,
      );
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
          {DELIVERY_STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
        {props.canManage && (
          <form class="row" onSubmit={recover}>
            <label for="recover-since">Recover failed since</label>
            <input
              id="recover-since"
              type="datetime-local"
              value={since}
              onInput={(e) => setSince(e.currentTarget.value)}
              aria-describedby="recover-since-error"
            />
            <button type="submit">Recover</button>
          </form>
        )}
      </div>
      <FieldError id="recover-since-error" error={error} field="since" />
      <Notice text={notice} />
      <SendingProgress webhookId={props.webhookId} sending={sending} what="Recovered deliveries" />
      <ErrorBanner error={error} fields={['since']} />
      {!data ? (
        <Loading what="deliveries" />
      ) : data.records.length === 0 ? (
        <p class="empty">
          {status ? `No ${status} deliveries.` : 'No deliveries yet. Send a test event to see one here.'}
        </p>
      ) : (
        <div class="table-wrap">
          <table class="log">
            <caption class="sr-only">Deliveries, newest first</caption>
            <TableHead columns={['Created', 'Event', 'Status', 'Attempts', 'Last response', 'Next attempt']} actions />
            <tbody>
              {data.records.map((delivery) => (
                <tr key={delivery.id} class={open?.id === delivery.id ? 'selected' : undefined}>
                  <td data-label="Created">
                    <When iso={delivery.createdAt} />
                  </td>
                  <td data-label="Event">{eventName(delivery.event)}</td>
                  <td data-label="Status">
                    <span
                      class={`pill ${delivery.status === 'succeeded' ? 'ok' : delivery.status === 'failed' ? 'bad' : ''}`}
                    >
                      {delivery.status}
                    </span>
                  </td>
                  <td data-label="Attempts">{delivery.attemptCount}</td>
                  <td data-label="Last response">{delivery.lastStatusCode ?? '—'}</td>
                  <td data-label="Next attempt">
                    <When iso={delivery.nextAttemptAt} />
                  </td>
                  <td data-label="Actions">
                    <span class="buttons">
                      <button
                        type="button"
                        aria-expanded={open?.id === delivery.id}
                        aria-controls="delivery-detail"
                        onClick={() => show(delivery)}
                        aria-label={`Details of delivery ${delivery.id}`}
                      >
                        Details
                      </button>
                      {props.canManage && (
                        <button
                          type="button"
                          disabled={delivery.status === 'pending'}
                          onClick={() => resend(delivery)}
                          aria-label={`Resend delivery ${delivery.id}`}
                        >
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
  // Opened below the table: brought into view, as the button that opened it says it did.
  const panel = useRef<HTMLElement>(null);
  useEffect(() => panel.current?.scrollIntoView({ block: 'start' }), [delivery.id]);
  let payload = delivery.payload ?? '';
  try {
    payload = JSON.stringify(JSON.parse(payload), null, 2);
  } catch {
    // shown as sent
  }
  return (
    <article id="delivery-detail" class="detail" aria-labelledby="delivery-title" ref={panel}>
      <h3 id="delivery-title">
        Delivery <span class="mono">{delivery.id}</span> ({eventName(delivery.event)}, {delivery.status})
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
            <TableHead columns={['#', 'Time', 'Status code', 'Duration', 'Response', 'Error', 'Custom headers']} />
            <tbody>
              {delivery.attempts!.map((attempt) => (
                <tr key={attempt.number}>
                  <td data-label="#">
                    {attempt.number}
                    {attempt.trigger === 'manual' ? ' (manual)' : ''}
                  </td>
                  <td data-label="Time">
                    <When iso={attempt.attemptedAt} />
                  </td>
                  <td data-label="Status code">{attempt.statusCode ?? 'none'}</td>
                  <td data-label="Duration">{attempt.durationMs === null ? '—' : `${attempt.durationMs} ms`}</td>
                  <td data-label="Response" class="mono excerpt">
                    {attempt.responseBody ?? ''}
                  </td>
                  <td data-label="Error">{attempt.error ?? ''}</td>
                  <td data-label="Custom headers">{attempt.headers.join(', ')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </article>
  );
}
