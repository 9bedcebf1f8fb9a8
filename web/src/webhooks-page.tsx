import { useEffect, useState } from 'preact/hooks';
import { ApiError, gql } from './api';
import { Dialog, ErrorBanner, Notice, Loading, Pager, type PageInfo, TableHead, When } from './ui';
import { SecretBox, WEBHOOK_FIELDS, type Webhook, WebhookForm } from './webhook-form';
import { eventName } from './vocabulary.generated';
import { Notices } from './notices';
import { SubjectSearch } from './subject-search';
import { HealthGlance, useGlances } from './health-glance';

// Setup > Webhooks: the spec's columns (#, Title, Hits, Last Hit, Created At)
// with the URL, events, state and the last day's health; search, paging, create
// and delete; and the deliveries about one call, campaign, contact or agent.

const LIST = `query Webhooks($search: String, $page: Int, $perPage: Int) {
  webhooks(search: $search, page: $page, perPage: $perPage) { records { ${WEBHOOK_FIELDS} } pagination { currentPage lastPage total from to } }
}`;
const DELETE = `mutation DeleteWebhook($id: ID!) { deleteWebhook(id: $id) }`;
const PER_PAGE = 15;

export function WebhooksPage(props: { canManage: boolean }) {
  const [search, setSearch] = useState('');
  const [query, setQuery] = useState('');
  const [page, setPage] = useState(1);
  const [data, setData] = useState<{ records: Webhook[]; pagination: PageInfo } | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<(Webhook & { secret?: string }) | null>(null);
  const [deleting, setDeleting] = useState<Webhook | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const glances = useGlances(data?.records);

  const load = async () => {
    try {
      const result = await gql<{ webhooks: { records: Webhook[]; pagination: PageInfo } }>(LIST, {
        search: query || null,
        page,
        perPage: PER_PAGE,
      });
      setData(result.webhooks);
      setError(null);
    } catch (caught) {
      setError(caught as ApiError);
    }
  };
  useEffect(() => {
    void load();
  }, [query, page]);

  const remove = async () => {
    if (!deleting) return;
    try {
      await gql(DELETE, { id: String(deleting.id) });
      setNotice(`Webhook #${deleting.id} “${deleting.title}” was deleted.`);
      setDeleting(null);
      void load();
    } catch (caught) {
      setError(caught as ApiError);
      setDeleting(null);
    }
  };

  return (
    <section aria-labelledby="webhooks-title">
      <div class="title-row">
        <h1 id="webhooks-title">Webhooks</h1>
        {props.canManage && (
          <button type="button" class="primary" onClick={() => setCreating(true)}>
            New webhook
          </button>
        )}
      </div>
      <Notices />
      <p class="muted">
        Signed POST requests to your URLs when calls, agents, campaigns, leads, appointments and SMS change.
      </p>
      <form
        class="search"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setPage(1);
          setQuery(search.trim());
        }}
      >
        <label for="webhook-search">Search webhooks</label>
        <input
          id="webhook-search"
          type="search"
          value={search}
          maxLength={200}
          placeholder="Title or URL"
          onInput={(e) => setSearch(e.currentTarget.value)}
        />
        <button type="submit">Search</button>
      </form>
      <Notice text={notice} />
      <ErrorBanner error={error} />
      {!data ? (
        !error && <Loading what="webhooks" />
      ) : data.records.length === 0 ? (
        <p class="empty">
          {query ? `No webhook matches “${query}”.` : 'No webhooks yet. Create one to receive events at your URL.'}
        </p>
      ) : (
        <div class="table-wrap">
          <table>
            <caption class="sr-only">Webhooks of the company</caption>
            <TableHead
              columns={['#', 'Title', 'Hits', 'Last Hit', 'Created At', 'State', 'Last day']}
              actions={props.canManage}
            />
            <tbody>
              {data.records.map((webhook) => (
                <tr key={webhook.id}>
                  <td data-label="#">{webhook.id}</td>
                  <td data-label="Title">
                    <div>
                      <a href={`#/setup/webhooks/${webhook.id}`}>{webhook.title}</a>
                      <div class="sub mono">{webhook.url}</div>
                      <div class="sub">{webhook.events.map(eventName).join(', ')}</div>
                    </div>
                  </td>
                  <td data-label="Hits">{webhook.hits}</td>
                  <td data-label="Last Hit">
                    <When iso={webhook.lastHit} />
                  </td>
                  <td data-label="Created At">
                    <When iso={webhook.createdAt} />
                  </td>
                  <td data-label="State">
                    <State webhook={webhook} />
                  </td>
                  <td data-label="Last day">
                    <HealthGlance webhook={webhook} glance={glances.get(webhook.id)} />
                  </td>
                  {props.canManage && (
                    <td data-label="Actions">
                      <button
                        type="button"
                        class="danger"
                        onClick={() => setDeleting(webhook)}
                        aria-label={`Delete webhook ${webhook.title}`}
                      >
                        Delete
                      </button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {data && data.pagination.total > 0 && <Pager page={data.pagination} label="Webhooks" onPage={setPage} />}

      <SubjectSearch canManage={props.canManage} />
      {creating && (
        <WebhookForm
          onClose={() => setCreating(false)}
          onSaved={(webhook) => {
            setCreating(false);
            setCreated(webhook);
            void load();
          }}
        />
      )}
      {created && (
        <Dialog title={`Webhook #${created.id} created`} onClose={() => setCreated(null)}>
          <p>
            Deliveries are signed with this secret. Keep it where your receiver can verify signatures; you can reveal or
            rotate it later.
          </p>
          <SecretBox secret={created.secret ?? ''} />
          <footer class="actions">
            <a class="button primary" href={`#/setup/webhooks/${created.id}`} onClick={() => setCreated(null)}>
              Open the webhook
            </a>
          </footer>
        </Dialog>
      )}
      {deleting && (
        <Dialog title="Delete this webhook?" onClose={() => setDeleting(null)}>
          <p>
            Webhook #{deleting.id} “{deleting.title}” stops receiving events and its delivery log is deleted. This
            cannot be undone.
          </p>
          <footer class="actions">
            <button type="button" onClick={() => setDeleting(null)}>
              Cancel
            </button>
            <button type="button" class="danger" onClick={remove}>
              Delete webhook
            </button>
          </footer>
        </Dialog>
      )}
    </section>
  );
}

export function State(props: { webhook: Webhook }) {
  const { webhook } = props;
  if (webhook.active) return <span class="pill ok">Active</span>;
  if (webhook.disabledReason) return <span class="pill bad">Switched off ({webhook.disabledReason})</span>;
  return <span class="pill">Inactive</span>;
}
