import { useState } from 'preact/hooks';
import { ApiError, gql } from './api';
import { DELIVERY_FIELDS, type Delivery } from './delivery-log';
import { ErrorBanner, FieldError, Notice, TableHead, When } from './ui';
import { eventName } from './vocabulary.generated';

// "Did call 5012's webhooks arrive?": the company's deliveries about one call,
// campaign, contact or agent, across every webhook, with a resend for each.

const KINDS = [
  ['callId', 'Call'],
  ['campaignId', 'Campaign'],
  ['contactId', 'Contact'],
  ['agentId', 'Agent'],
] as const;
type Kind = (typeof KINDS)[number][0];

const FIND = `query BySubject($callId: ID, $campaignId: ID, $contactId: ID, $agentId: ID) {
  webhookDeliveriesBySubject(callId: $callId, campaignId: $campaignId, contactId: $contactId, agentId: $agentId, perPage: 50) {
    records { ${DELIVERY_FIELDS} webhookId } pagination { total } }
}`;
type Found = Delivery & { webhookId: number };
const RESEND = `mutation Resend($id: ID!) { resendWebhookDelivery(id: $id) { ${DELIVERY_FIELDS} } }`;

export function SubjectSearch(props: { canManage: boolean }) {
  const [kind, setKind] = useState<Kind>('callId');
  const [id, setId] = useState('');
  const [found, setFound] = useState<{ records: Found[]; total: number } | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const find = async (event?: Event) => {
    event?.preventDefault();
    setNotice(null);
    try {
      const result = await gql<{ webhookDeliveriesBySubject: { records: Found[]; pagination: { total: number } } }>(
        FIND,
        { [kind]: id.trim() },
      );
      setFound({
        records: result.webhookDeliveriesBySubject.records,
        total: result.webhookDeliveriesBySubject.pagination.total,
      });
      setError(null);
    } catch (caught) {
      setError(caught as ApiError);
      setFound(null);
    }
  };
  const resend = async (delivery: Delivery) => {
    try {
      await gql(RESEND, { id: delivery.id });
      await find();
      setNotice(`Delivery ${delivery.id} is being sent again.`);
    } catch (caught) {
      setError(caught as ApiError);
    }
  };
  const label = KINDS.find(([k]) => k === kind)![1];

  return (
    <section aria-labelledby="subject-title" class="panel">
      <h2 id="subject-title">Find deliveries</h2>
      <form class="row" onSubmit={find}>
        <label for="subject-kind">About a</label>
        <select id="subject-kind" value={kind} onChange={(e) => setKind(e.currentTarget.value as Kind)}>
          {KINDS.map(([value, text]) => (
            <option key={value} value={value}>
              {text}
            </option>
          ))}
        </select>
        <label for="subject-id">{label} id</label>
        <input
          id="subject-id"
          inputMode="numeric"
          value={id}
          onInput={(e) => setId(e.currentTarget.value)}
          aria-describedby="subject-id-error"
        />
        <button type="submit">Find</button>
      </form>
      <FieldError id="subject-id-error" error={error} field={kind} />
      <ErrorBanner error={error} fields={[kind, 'callId']} />
      <Notice text={notice} />
      {found && found.records.length === 0 && (
        <p class="empty">
          No deliveries about {label.toLowerCase()} {id.trim()}.
        </p>
      )}
      {found && found.records.length > 0 && (
        <table>
          <caption class="sr-only">
            Deliveries about {label.toLowerCase()} {id.trim()} ({found.total})
          </caption>
          <TableHead columns={['Created', 'Webhook', 'Event', 'Status', 'Attempts']} actions={props.canManage} />
          <tbody>
            {found.records.map((delivery) => (
              <tr key={delivery.id}>
                <td data-label="Created">
                  <When iso={delivery.createdAt} />
                </td>
                <td data-label="Webhook">
                  <a href={`#/setup/webhooks/${delivery.webhookId}`}>#{delivery.webhookId}</a>
                </td>
                <td data-label="Event">{eventName(delivery.event)}</td>
                <td data-label="Status">{delivery.status}</td>
                <td data-label="Attempts">{delivery.attemptCount}</td>
                {props.canManage && (
                  <td>
                    <button
                      type="button"
                      disabled={delivery.status === 'pending'}
                      onClick={() => resend(delivery)}
                      aria-label={`Resend delivery ${delivery.id}`}
                    >
                      Resend
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
