import { useEffect, useState } from 'preact/hooks';
import { ApiError, gql } from './api';
import {
  DELIVERY,
  DELIVERY_FIELDS,
  ATTEMPTS,
  DeliveryLog,
  asApiError,
  type Attempt,
  type Delivery,
} from './delivery-log';
import { Dialog, ErrorBanner, Notice, FieldError, Loading, useInterval, useTime, When } from './ui';
import { SecretBox, WEBHOOK_FIELDS, type Webhook, WebhookForm } from './webhook-form';
import { State } from './webhooks-page';
import { eventName } from './vocabulary.generated';
import { FilteredEvents } from './filtered-events';
import { Notices } from './notices';
import { ReplayPanel } from './replay-panel';
import { HealthPanel } from './health-panel';

// One webhook: its settings, state, secret and a test send; its delivery log
// is in delivery-log.tsx.

const WEBHOOK = `query Webhook($id: ID!) { webhook(id: $id) { ${WEBHOOK_FIELDS} } }`;
const SECRET = `query Secret($id: ID!) { webhookSecret(id: $id) { secret previousSecretExpiresAt } }`;
const ROTATE = `mutation Rotate($id: ID!) { rotateWebhookSecret(id: $id) { secret previousSecretExpiresAt } }`;
const TEST = `mutation Test($id: ID!, $event: WebhookEvent) { testWebhook(id: $id, event: $event) { ${DELIVERY_FIELDS} ${ATTEMPTS} } }`;
const SET_ACTIVE = `mutation SetActive($id: ID!, $active: Boolean!) { updateWebhook(id: $id, input: { active: $active }) { ${WEBHOOK_FIELDS} } }`;

const REASONS: Record<string, string> = {
  gone: 'The service switched this webhook off because its URL answered 410 Gone.',
  failing: 'The service switched this webhook off because every delivery to its URL failed for too long.',
};

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
      setNotice(
        active
          ? 'The webhook is active: new events are delivered to its URL.'
          : 'The webhook is inactive: no new events are delivered.',
      );
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
          <p>
            {REASONS[webhook.disabledReason] ?? `The service switched this webhook off (${webhook.disabledReason}).`}{' '}
            Fix the receiver, then activate it again.
          </p>
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
        <dd>{webhook.events.map(eventName).join(', ')}</dd>
        <dt>List selection</dt>
        <dd>
          {webhook.listSelection}: {webhook.formData.join(', ')}
        </dd>
        <dt>Hits</dt>
        <dd>{webhook.hits}</dd>
        <dt>Last Hit</dt>
        <dd>
          <When iso={webhook.lastHit} />
        </dd>
        <dt>Concurrency</dt>
        <dd title="Attempts in flight at once: it grows while the endpoint answers 2xx fast and halves on a timeout, 429 or 5xx.">
          {webhook.concurrency} at once
          {webhook.pausedUntil ? `, paused until ${time(webhook.pausedUntil)} (the receiver's Retry-After)` : ''}
        </dd>
        <dt>Rate limit</dt>
        <dd>{webhook.rateLimit ? `${webhook.rateLimit} per second` : 'None'}</dd>
        <dt>Signatures</dt>
        <dd>
          {webhook.signatureScheme === 'v1a' ? (
            <>
              v1a (Ed25519), public key <code class="public-key">{webhook.publicKey}</code>
            </>
          ) : (
            'v1 (HMAC-SHA256 with the signing secret)'
          )}
        </dd>
        <dt>Order</dt>
        <dd>{webhook.ordering === 'subject' ? 'In order per subject' : 'As events come'}</dd>
        <dt>Filters</dt>
        <dd>{webhook.filters.length ? webhook.filters.map((f) => eventName(f.event)).join(', ') : 'None'}</dd>
        <dt>Custom headers</dt>
        <dd>
          {webhook.headers.length
            ? webhook.headers.map((h) => (h.secret ? `${h.name} (secret)` : h.name)).join(', ')
            : 'None'}
        </dd>
        <dt>Created At</dt>
        <dd>
          <When iso={webhook.createdAt} />
        </dd>
      </dl>

      <Notices webhookId={webhook.id} version={logVersion} />
      {props.canManage && <SecretPanel id={webhook.id} />}
      {props.canManage && <TestPanel webhook={webhook} onSent={() => setLogVersion((v) => v + 1)} />}
      <HealthPanel webhookId={webhook.id} />
      <DeliveryLog webhookId={webhook.id} canManage={props.canManage} version={logVersion} onChange={load} />
      {props.canManage && (
        <ReplayPanel webhookId={webhook.id} active={webhook.active} onReplayed={() => setLogVersion((v) => v + 1)} />
      )}
      <FilteredEvents webhookId={webhook.id} version={logVersion} />

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
      setSecret(
        (await gql<{ rotateWebhookSecret: typeof secret }>(ROTATE, { id: String(props.id) })).rotateWebhookSecret,
      );
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
          note={
            secret.previousSecretExpiresAt
              ? `The previous secret also signs deliveries until ${time(secret.previousSecretExpiresAt)}.`
              : undefined
          }
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
          <p>
            A new secret signs every delivery from now on. The current one keeps signing alongside it for a grace
            period, so receivers can switch without losing a delivery.
          </p>
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
      setResult(
        (await gql<{ testWebhook: Delivery }>(TEST, { id: String(props.webhook.id), event: event || null }))
          .testWebhook,
      );
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
        <select
          id="test-event"
          value={event}
          onChange={(e) => setEvent(e.currentTarget.value)}
          aria-describedby="test-event-error"
        >
          {props.webhook.events.map((name) => (
            <option key={name} value={name}>
              {eventName(name)}
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
            ? `Test ${eventName(result.event)} (${result.id}) is being sent…`
            : `Test ${eventName(result.event)} (${result.id}): ${result.status}` +
              `${result.lastStatusCode ? `, HTTP ${result.lastStatusCode}` : ', no response'}` +
              `${result.status === 'succeeded' ? '' : failureReason(last)}.`}
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
  return attempt?.error
    ? `: ${text.length > 140 ? `${text.slice(0, 140)}…` : text}`
    : `: “${text.length > 140 ? `${text.slice(0, 140)}…` : text}”`;
}
