import { useEffect, useState } from 'preact/hooks';
import { ApiError, gql } from './api';
import { asApiError } from './delivery-log';
import { ErrorBanner, Pager, TableHead, When, type PageInfo } from './ui';
import { eventName } from './vocabulary.generated';

// The events this webhook's filters turned away: no delivery was made for
// them, so they are not in the delivery log; each shows the data a delivery
// would have carried.

interface StoredEvent {
  id: string;
  event: string;
  occurredAt: string;
  data: Record<string, unknown>;
}

const FILTERED = `query Filtered($id: ID!, $page: Int) { webhookFilteredEvents(id: $id, page: $page, perPage: 10) {
  records { id event occurredAt data } pagination { total currentPage perPage lastPage from to } } }`;

export function FilteredEvents(props: { webhookId: number; version: number }) {
  const [page, setPage] = useState(1);
  const [found, setFound] = useState<{ records: StoredEvent[]; pagination: PageInfo } | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  useEffect(() => {
    gql<{ webhookFilteredEvents: { records: StoredEvent[]; pagination: PageInfo } }>(FILTERED, {
      id: String(props.webhookId),
      page,
    }).then(
      (data) => (setFound(data.webhookFilteredEvents), setError(null)),
      (caught) => setError(asApiError(caught)),
    );
  }, [props.webhookId, props.version, page]);
  const total = found?.pagination.total ?? 0;
  return (
    <section class="panel" aria-labelledby="filtered-title">
      <h2 id="filtered-title">Filtered ({total})</h2>
      <ErrorBanner error={error} />
      {found && total === 0 && <p class="empty">No event was turned away by this webhook's filters.</p>}
      {found && total > 0 && (
        <>
          <p class="hint">Events of its subscribed types that its filters turned away: no delivery was made.</p>
          <table>
            <caption class="sr-only">Events turned away by the filters ({total})</caption>
            <TableHead columns={['Occurred', 'Event', 'Event id', 'Data']} />
            <tbody>
              {found.records.map((e) => (
                <tr key={e.id}>
                  <td data-label="Occurred">
                    <When iso={e.occurredAt} />
                  </td>
                  <td data-label="Event">{eventName(e.event)}</td>
                  <td data-label="Event id" class="mono">
                    {e.id}
                  </td>
                  <td data-label="Data">
                    <button
                      type="button"
                      aria-expanded={open === e.id}
                      onClick={() => setOpen(open === e.id ? null : e.id)}
                      aria-label={`${open === e.id ? 'Hide' : 'Show'} data of event ${e.id}`}
                    >
                      {open === e.id ? 'Hide' : 'Show'}
                    </button>
                    {open === e.id && <pre class="mono payload">{JSON.stringify(e.data, null, 2)}</pre>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager page={found.pagination} onPage={setPage} label="Filtered events" />
        </>
      )}
    </section>
  );
}
