import { useEffect, useState } from 'preact/hooks';
import { ApiError, gql } from './api';
import { Dialog, ErrorBanner, FieldError, Loading, TextField } from './ui';
import { eventName } from './vocabulary.generated';
import { HeaderFields, headersInput, rowsOf, type WebhookHeader } from './header-fields';
import { FilterFields, filterRowsOf, filtersInput, type WebhookFilter } from './filter-fields';

// Create and edit share one form: title, URL, method, the list selection that
// fills the form data, the event types by category, payload filters, custom
// headers, active.

export interface Webhook {
  id: number;
  title: string;
  url: string;
  method: string;
  events: string[];
  headers: WebhookHeader[];
  filters: WebhookFilter[];
  listSelection: string;
  formData: string[];
  active: boolean;
  disabledReason: string | null;
  hits: number;
  lastHit: string | null;
  concurrency: number;
  rateLimit: number | null;
  pausedUntil: string | null;
  signatureScheme: string;
  publicKey: string | null;
  ordering: string;
  createdAt: string;
}

export const WEBHOOK_FIELDS =
  'id title url method events listSelection formData active disabledReason hits lastHit concurrency ' +
  'rateLimit pausedUntil signatureScheme publicKey ordering createdAt headers { name value secret } filters { event filter }';

/** The rate limit as typed: empty is none; anything but a whole number is sent as 0, which the service refuses with its rule. */
const rateLimitOf = (text: string) =>
  text.trim() === '' ? null : /^\d{1,6}$/.test(text.trim()) ? Number(text.trim()) : 0;

interface Choices {
  webhookEventTypes: { name: string; category: string; description: string }[];
  webhookFormFields: { fields: string[]; listSelections: { name: string; fields: string[] }[] };
}

const CHOICES = `query WebhookChoices { webhookEventTypes { name category description } webhookFormFields { fields listSelections { name fields } } }`;
const CREATE = `mutation CreateWebhook($input: CreateWebhookInput!) { createWebhook(input: $input) { webhook { ${WEBHOOK_FIELDS} } secret } }`;
const UPDATE = `mutation UpdateWebhook($id: ID!, $input: WebhookInput!) { updateWebhook(id: $id, input: $input) { ${WEBHOOK_FIELDS} } }`;

let choicesCache: Promise<Choices> | null = null;
export const loadChoices = () =>
  (choicesCache ??= gql<Choices>(CHOICES).catch((error) => ((choicesCache = null), Promise.reject(error))));

const FIELD_LABELS: Record<string, string> = { custom_fields: 'custom fields' };
const fieldLabel = (name: string) => FIELD_LABELS[name] ?? name.replace(/_/g, ' ');

export function WebhookForm(props: {
  webhook?: Webhook;
  onSaved: (webhook: Webhook & { secret?: string }) => void;
  onClose: () => void;
}) {
  const editing = props.webhook;
  const [choices, setChoices] = useState<Choices | null>(null);
  const [title, setTitle] = useState(editing?.title ?? '');
  const [url, setUrl] = useState(editing?.url ?? '');
  const [selection, setSelection] = useState(editing?.listSelection ?? 'Basic');
  const [formData, setFormData] = useState<string[]>(editing?.formData ?? []);
  const [events, setEvents] = useState<string[]>(editing?.events ?? []);
  const [active, setActive] = useState(editing?.active ?? true);
  const [rateLimit, setRateLimit] = useState(editing?.rateLimit ? String(editing.rateLimit) : '');
  const [scheme, setScheme] = useState(editing?.signatureScheme ?? 'v1');
  const [ordered, setOrdered] = useState(editing?.ordering === 'subject');
  const [headers, setHeaders] = useState(rowsOf(editing?.headers));
  const [filters, setFilters] = useState(filterRowsOf(editing?.filters));
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    loadChoices().then(
      (loaded) => {
        setChoices(loaded);
        if (!editing)
          setFormData(loaded.webhookFormFields.listSelections.find((s) => s.name === 'Basic')?.fields ?? []);
      },
      (caught) => setError(caught instanceof ApiError ? caught : new ApiError(String(caught), 'ERROR')),
    );
  }, []);

  /** A list selection fills the form data; ticking a field by hand makes it Custom (or the preset it now equals). */
  const choose = (name: string) => {
    setSelection(name);
    const preset = choices?.webhookFormFields.listSelections.find((s) => s.name === name);
    if (preset && name !== 'Custom') setFormData(preset.fields);
  };
  const toggleField = (field: string, on: boolean) => {
    const next = on ? [...formData, field] : formData.filter((f) => f !== field);
    setFormData(next);
    const key = [...next].sort().join(',');
    const match = choices?.webhookFormFields.listSelections.find(
      (s) => s.name !== 'Custom' && [...s.fields].sort().join(',') === key,
    );
    setSelection(match?.name ?? 'Custom');
  };
  const toggleEvent = (name: string, on: boolean) =>
    setEvents(on ? [...events, name] : events.filter((e) => e !== name));

  const submit = async (event: Event) => {
    event.preventDefault();
    // A filter of an event no longer ticked goes with it.
    const kept = filters.filter((row) => events.includes(row.event));
    const checked = filtersInput(kept);
    if (checked.badRow !== null) {
      setError(
        new ApiError('A filter is not valid JSON.', 'BAD_USER_INPUT', {
          [`filters.${checked.badRow}.filter`]: [
            'This is not a JSON object: a filter is { "path": …, "eq": … } or { "and": [ … ] }.',
          ],
        }),
      );
      return;
    }
    setFilters(kept);
    setBusy(true);
    setError(null);
    const input = {
      title,
      url,
      method: 'POST',
      listSelection: selection,
      formData,
      events,
      active,
      rateLimit: rateLimitOf(rateLimit),
      signatureScheme: scheme,
      ordering: ordered ? 'subject' : 'none',
      headers: headersInput(headers),
      filters: checked.filters,
    };
    try {
      if (editing) {
        const data = await gql<{ updateWebhook: Webhook }>(UPDATE, { id: String(editing.id), input });
        props.onSaved(data.updateWebhook);
      } else {
        const { createWebhook } = await gql<{ createWebhook: { webhook: Webhook; secret: string } }>(CREATE, { input });
        props.onSaved({ ...createWebhook.webhook, secret: createWebhook.secret });
      }
    } catch (caught) {
      setError(caught instanceof ApiError ? caught : new ApiError(String(caught), 'ERROR'));
      setBusy(false);
    }
  };

  const invalid = (field: string) => (error?.fieldMessages(field).length ? true : undefined);
  const categories = new Map<string, Choices['webhookEventTypes']>();
  for (const type of choices?.webhookEventTypes ?? [])
    categories.set(type.category, [...(categories.get(type.category) ?? []), type]);

  return (
    <Dialog title={editing ? `Edit webhook #${editing.id}` : 'New webhook'} onClose={props.onClose} wide>
      {!choices && !error ? (
        <Loading what="the form" />
      ) : (
        <form onSubmit={submit} noValidate>
          <div class="grid">
            <div>
              <TextField
                id="wh-title"
                label="Title"
                field="title"
                maxLength={255}
                value={title}
                onValue={setTitle}
                error={error}
              />
            </div>
            <div>
              <label for="wh-method">Method</label>
              <input id="wh-method" value="POST" readOnly aria-describedby="wh-method-note" />
              <p id="wh-method-note" class="hint">
                Deliveries are always POST.
              </p>
              <FieldError id="wh-method-error" error={error} field="method" />
            </div>
          </div>
          <TextField
            id="wh-url"
            label="URL"
            field="url"
            type="url"
            inputMode="url"
            placeholder="https://example.com/webhooks"
            value={url}
            onValue={setUrl}
            error={error}
          />
          <p class="hint" id="wh-url-hint">
            Or a broker: <code>amqp://user:pass@host/vhost?exchange=…&amp;routing_key=…</code>,{' '}
            <code>nats://host?subject=…</code>, <code>redis://host/0?stream=…</code>, <code>mqtt://host?topic=…</code>.
            A password is kept encrypted and shown as ***.
          </p>

          <label for="wh-selection">List selection</label>
          <select
            id="wh-selection"
            value={selection}
            onChange={(e) => choose(e.currentTarget.value)}
            aria-invalid={invalid('listSelection')}
            aria-describedby="wh-selection-error"
          >
            {choices?.webhookFormFields.listSelections.map((s) => (
              <option key={s.name} value={s.name}>
                {s.name}
              </option>
            ))}
          </select>
          <FieldError id="wh-selection-error" error={error} field="listSelection" />

          <fieldset aria-describedby="wh-form-data-error">
            <legend>Form data (contact fields in every payload)</legend>
            <div class="checks">
              {choices?.webhookFormFields.fields.map((field) => (
                <label key={field} class="check">
                  <input
                    type="checkbox"
                    name="form_data"
                    value={field}
                    checked={formData.includes(field)}
                    onChange={(e) => toggleField(field, e.currentTarget.checked)}
                  />
                  {fieldLabel(field)}
                </label>
              ))}
            </div>
            <FieldError id="wh-form-data-error" error={error} field="formData" />
          </fieldset>

          <fieldset aria-describedby="wh-events-error">
            <legend>Events</legend>
            {[...categories].map(([category, types]) => (
              <fieldset key={category} class="category">
                <legend>{categoryLabel(category)}</legend>
                <div class="checks">
                  {types.map((type) => (
                    <label key={type.name} class="check" title={type.description}>
                      <input
                        type="checkbox"
                        name="events"
                        value={type.name}
                        checked={events.includes(type.name)}
                        onChange={(e) => toggleEvent(type.name, e.currentTarget.checked)}
                      />
                      {eventName(type.name)}
                    </label>
                  ))}
                </div>
              </fieldset>
            ))}
            <FieldError id="wh-events-error" error={error} field="events" />
          </fieldset>

          <FilterFields rows={filters} onRows={setFilters} events={events} error={error} />

          <HeaderFields rows={headers} onRows={setHeaders} error={error} />

          <TextField
            id="wh-rate-limit"
            label="Rate limit (deliveries per second; empty for none)"
            field="rateLimit"
            inputMode="numeric"
            placeholder="No limit"
            value={rateLimit}
            onValue={setRateLimit}
            error={error}
          />

          <label for="wh-scheme">Signatures</label>
          <select
            id="wh-scheme"
            value={scheme}
            onChange={(e) => setScheme(e.currentTarget.value)}
            aria-invalid={invalid('signatureScheme')}
            aria-describedby="wh-scheme-error"
          >
            <option value="v1">v1: HMAC-SHA256 with the signing secret</option>
            <option value="v1a">v1a: Ed25519, verified with a public key</option>
          </select>
          <FieldError id="wh-scheme-error" error={error} field="signatureScheme" />

          <label class="check">
            <input type="checkbox" checked={ordered} onChange={(e) => setOrdered(e.currentTarget.checked)} />
            In order per subject (one call's, campaign's, agent's or contact's events one at a time)
          </label>

          <label class="check">
            <input type="checkbox" checked={active} onChange={(e) => setActive(e.currentTarget.checked)} />
            Active (deliver events to this URL)
          </label>

          <ErrorBanner
            error={error}
            fields={[
              'title',
              'url',
              'method',
              'listSelection',
              'formData',
              'events',
              'rateLimit',
              'signatureScheme',
              'headers',
              ...headers.flatMap((_, i) => [`headers.${i}.name`, `headers.${i}.value`]),
              'filters',
              ...filters.map((_, i) => `filters.${i}`),
            ]}
          />
          <footer class="actions">
            <button type="button" onClick={props.onClose}>
              Cancel
            </button>
            <button type="submit" class="primary" disabled={busy}>
              {busy ? 'Saving…' : editing ? 'Save changes' : 'Create webhook'}
            </button>
          </footer>
        </form>
      )}
      {!choices && error && <ErrorBanner error={error} />}
    </Dialog>
  );
}

/** The secret, shown with a copy button (after creation, on reveal and after rotation). */
/** The secret with a copy button; `labelHidden` where a heading already names it (the label stays for screen readers). */
/** An event category as a heading: `sms` is SMS, the others capitalized. */
const categoryLabel = (category: string) =>
  category === 'sms' ? 'SMS' : category.charAt(0).toUpperCase() + category.slice(1);

export function SecretBox(props: { secret: string; note?: string; labelHidden?: boolean }) {
  const [copied, setCopied] = useState<string | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.secret);
      setCopied('Copied to the clipboard.');
    } catch {
      setCopied('The browser refused the clipboard: select the secret and copy it.');
    }
  };
  return (
    <div class="secret">
      <label for="wh-secret" class={props.labelHidden ? 'sr-only' : undefined}>
        Signing secret
      </label>
      <div class="row">
        <input id="wh-secret" class="mono" readOnly value={props.secret} onFocus={(e) => e.currentTarget.select()} />
        <button type="button" onClick={copy}>
          Copy
        </button>
      </div>
      {props.note && <p class="hint">{props.note}</p>}
      <p class="hint" role="status">
        {copied ?? ''}
      </p>
    </div>
  );
}
