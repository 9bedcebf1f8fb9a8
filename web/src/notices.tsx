import { useEffect, useState } from 'preact/hooks';
import { ApiError, gql } from './api';
import { asApiError } from './delivery-log';
import { ErrorBanner, Pager, When, type PageInfo } from './ui';
import { eventName } from './vocabulary.generated';

// The operator events (webhook.failing, webhook.disabled, webhook.recovered,
// delivery.exhausted) as notices: on the list, every webhook's; on a
// webhook's page, those about it. Shown only when there are any.

interface Notice {
  id: string;
  event: string;
  occurredAt: string;
  data: Record<string, unknown>;
}

// Only the open ones: a notice ends when what it reports is resolved.
const NOTICES = `query Notices($webhookId: ID, $page: Int) { webhookNotices(webhookId: $webhookId, open: true, page: $page, perPage: 5) {
  records { id event occurredAt data } pagination { total currentPage perPage lastPage from to } } }`;

const answer = (data: Record<string, unknown>) =>
  data.last_status_code !== null && data.last_status_code !== undefined
    ? `it answered ${data.last_status_code}`
    : `${data.last_error ?? 'no answer'}`;

/** One notice as a sentence, with the times it names; `severity` colours it. */
function sentence(
  notice: Notice,
  ofThisWebhook: boolean,
): { severity: 'error' | 'warn' | 'success'; text: preact.ComponentChildren } {
  const d = notice.data;
  const who = ofThisWebhook ? 'This webhook' : `"${String(d.title)}"`;
  switch (eventName(notice.event)) {
    case 'webhook.failing':
      return {
        severity: 'warn',
        text: (
          <>
            {who} has failed since <When iso={String(d.failing_since)} /> ({String(d.percent)} % of the time allowed;
            last time {answer(d)}). It will be switched off at <When iso={String(d.disable_at)} /> if it keeps failing.
          </>
        ),
      };
    case 'webhook.disabled':
      return {
        severity: 'error',
        text: (
          <>
            {who} was switched off:{' '}
            {d.reason === 'gone' ? 'its endpoint answered 410 Gone' : 'every attempt failed for the whole time allowed'}
            . Its waiting deliveries were cancelled; set it active again to resume.
          </>
        ),
      };
    case 'webhook.recovered':
      return {
        severity: 'success',
        text: (
          <>
            {who} answers again, after failing since <When iso={String(d.failing_since)} />.
          </>
        ),
      };
    default:
      return {
        severity: 'error',
        text: (
          <>
            {/^[aeiou]/.test(eventName(String(d.event))) ? 'An' : 'A'} {eventName(String(d.event))} delivery (
            {String(d.delivery_id)}) to {ofThisWebhook ? 'this webhook' : who} failed all {String(d.attempts)} attempts;
            last time {answer(d)}. Resend it from the delivery log.
          </>
        ),
      };
  }
}

export function Notices(props: { webhookId?: number; version?: number }) {
  const [page, setPage] = useState(1);
  const [found, setFound] = useState<{ records: Notice[]; pagination: PageInfo } | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  useEffect(() => {
    gql<{ webhookNotices: { records: Notice[]; pagination: PageInfo } }>(NOTICES, {
      webhookId: props.webhookId === undefined ? null : String(props.webhookId),
      page,
    }).then(
      (data) => (setFound(data.webhookNotices), setError(null)),
      (caught) => setError(asApiError(caught)),
    );
  }, [props.webhookId, props.version, page]);
  if (error) return <ErrorBanner error={error} />;
  if (!found || found.pagination.total === 0) return null;
  return (
    <section class="panel" aria-labelledby="notices-title">
      <h2 id="notices-title">Notices ({found.pagination.total})</h2>
      <ul class="notices">
        {found.records.map((notice) => {
          const { severity, text } = sentence(notice, props.webhookId !== undefined);
          return (
            <li key={notice.id} class={`banner ${severity}`} data-event={eventName(notice.event)}>
              <When iso={notice.occurredAt} />: {text}
            </li>
          );
        })}
      </ul>
      <Pager page={found.pagination} onPage={setPage} label="Notices" />
    </section>
  );
}
