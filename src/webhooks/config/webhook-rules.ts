import type { SecretBox } from '../../crypto/secret-box.js';
import { ValidationError } from '../../kernel/errors.js';
import { EVENT_NAMES, isEventType } from '../../events/catalog.js';
import { LIMITS, Rules, message } from '../../kernel/validation.js';
import { BOUNDS } from '../../kernel/bounds.js';
import { urlProblem, type DestinationPolicy } from './destination.js';
import { urlToStore } from './broker-url.js';
import { FORM_FIELDS, isFormField, LIST_SELECTIONS, selectionOf, SELECTION_NAMES } from './payload.js';
import { headersToStore, type WebhookHeaderInput } from './headers.js';
import { type WebhookFilterInput, filtersToStore, type StoredFilters } from './filters.js';
import type { Webhook } from '../../entities/webhook.entity.js';
import { checkCredentials, type EndpointCredentials, sealCredentials } from './credentials.js';

// The rules of a webhook's fields (webhook.service.ts creates and changes
// webhooks with what they give back): every problem named at once, 422.

export interface WebhookInput {
  title?: string | null;
  url?: string | null;
  method?: string | null;
  listSelection?: string | null;
  formData?: string[] | null;
  events?: string[] | null;
  active?: boolean | null;
  rateLimit?: number | null;
  /** Replaces every custom header; null or left out keeps them. */
  headers?: WebhookHeaderInput[] | null;
  /** Replaces every payload filter; null or left out keeps them (those of events still subscribed). */
  filters?: WebhookFilterInput[] | null;
  /** `v1` (HMAC-SHA256, the default) or `v1a` (Ed25519): what webhook-signature carries. */
  signatureScheme?: string | null;
  /** `subject` (deliveries about one subject one at a time, in order) or `none` (the default). */
  ordering?: string | null;
  /** OAuth2 client credentials (http and https) and client TLS (https and brokers over TLS); null removes them, left out keeps them. */
  credentials?: EndpointCredentials | null;
}

export const ORDERINGS = ['none', 'subject'] as const;

export const SIGNATURE_SCHEMES = ['v1', 'v1a'] as const;

export type CheckedFields = Partial<
  Pick<
    Webhook,
    | 'title'
    | 'url'
    | 'urlSealed'
    | 'listSelection'
    | 'formData'
    | 'events'
    | 'rateLimit'
    | 'headers'
    | 'ordering'
    | 'credentialsSealed'
  >
> & { filters?: StoredFilters };

/** The rules of every field given (all required ones on create); the list selection and form data agree. */
/** `session`: a session webhook of npm run listen (webhooks/tools/listen.ts), whose url is its own: never an address to send to. */
export function checkWebhook(
  input: WebhookInput,
  {
    creating,
    current,
    session = false,
    box,
    destinations,
  }: { creating: boolean; current?: Webhook; session?: boolean; box: SecretBox; destinations: DestinationPolicy },
): CheckedFields {
  const rules = new Rules();
  const out: CheckedFields = {};
  if (input.headers !== undefined && input.headers !== null)
    out.headers = headersToStore(rules, input.headers, current?.headers ?? [], box);
  if (creating || input.title !== undefined) {
    rules.required('title', input.title).maxChars('title', input.title, BOUNDS.webhook.title.maxLength);
    if (typeof input.title === 'string') out.title = input.title.trim();
  }
  if (creating || input.url !== undefined) {
    rules.required('url', input.url).maxChars('url', input.url, BOUNDS.webhook.url.maxLength);
    const problem =
      typeof input.url === 'string' && input.url.trim() !== '' && !session
        ? urlProblem(input.url.trim(), destinations)
        : undefined;
    if (problem && !rules.has('url')) rules.add('url', problem);
    const kept =
      !problem && !rules.has('url') && typeof input.url === 'string' && !session
        ? urlToStore(input.url.trim(), current, box)
        : undefined;
    if (kept === null) rules.add('url', "The url field's password *** stands for the stored one, and there is none.");
    if (kept) Object.assign(out, kept);
    else if (typeof input.url === 'string') out.url = input.url.trim();
  }
  if (input.method !== undefined && input.method !== null && input.method.toUpperCase() !== 'POST')
    rules.add('method', 'The method field must be POST.');
  if (creating || input.events !== undefined) {
    const events = input.events ?? [];
    if (events.length === 0) rules.add('events', message.required('events'));
    events.forEach((name, i) => {
      if (!isEventType(name)) rules.add(`events.${i}`, message.oneOf(`events.${i}`, name, EVENT_NAMES));
    });
    out.events = EVENT_NAMES.filter((name) => events.includes(name));
  }
  if (input.formData !== undefined && input.formData !== null) {
    if (input.formData.length > LIMITS.arrayItems)
      rules.add('formData', message.maxItems('formData', LIMITS.arrayItems));
    input.formData.forEach((name, i) => {
      if (!isFormField(name))
        rules.add(`formData.${i}`, message.oneOf(`formData.${i}`, name, [...FORM_FIELDS, 'custom_fields.<key>']));
    });
  }
  const filters = filtersToStore(
    rules,
    input.filters,
    out.events ?? current?.events ?? [],
    (current?.filters ?? {}) as StoredFilters,
  );
  if (filters !== undefined) out.filters = filters;
  rules.oneOf('listSelection', input.listSelection, SELECTION_NAMES);
  rules.oneOf('signatureScheme', input.signatureScheme, SIGNATURE_SCHEMES);
  rules.oneOf('ordering', input.ordering, ORDERINGS);
  if (typeof input.ordering === 'string') out.ordering = input.ordering;
  const url = out.url ?? current?.url;
  const credentials = checkCredentials(input.credentials, url, destinations, rules, { brokers: true });
  if (credentials !== undefined) out.credentialsSealed = sealCredentials(box, credentials);
  if (input.rateLimit !== undefined) {
    if (
      input.rateLimit !== null &&
      !(
        Number.isInteger(input.rateLimit) &&
        input.rateLimit >= BOUNDS.webhook.rateLimit.minimum &&
        input.rateLimit <= BOUNDS.webhook.rateLimit.maximum
      )
    ) {
      rules.add(
        'rateLimit',
        `The rate limit field must be a whole number of deliveries per second from ` +
          `${BOUNDS.webhook.rateLimit.minimum} to ${BOUNDS.webhook.rateLimit.maximum}, or null for none.`,
      );
    } else out.rateLimit = input.rateLimit;
  }
  rules.check();
  const formData = input.formData ? [...new Set(input.formData)] : undefined;
  const selection = input.listSelection ?? undefined;
  if (selection && selection !== 'Custom' && formData && selectionOf(formData) !== selection) {
    throw ValidationError.field(
      'listSelection',
      'The list selection and the form data disagree: choose one, or give Custom with the form data.',
    );
  }
  if (selection === 'Custom' && !formData && !current)
    throw ValidationError.field('formData', 'The form data field is required with the Custom list selection.');
  if (selection && selection !== 'Custom') {
    out.listSelection = selection;
    out.formData = [...LIST_SELECTIONS[selection as keyof typeof LIST_SELECTIONS]];
  } else if (formData) {
    out.formData = formData;
    out.listSelection = selection === 'Custom' ? 'Custom' : selectionOf(formData);
  } else if (selection === 'Custom') {
    out.listSelection = 'Custom';
  } else if (creating) {
    out.listSelection = 'Basic';
    out.formData = [...LIST_SELECTIONS.Basic];
  }
  return out;
}
