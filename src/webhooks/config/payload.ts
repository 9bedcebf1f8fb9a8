import type { ContactFields } from '../../events/recorder.js';
import { ulidFactory } from '../../kernel/ulids.js';
import { LIST_SELECTION_NAMES, type ListSelectionName } from '../../kernel/vocabulary.js';

// The payload text (docs/design.md §5): { event, timestamp, webhook_id, data,
// metadata: { version } }, metadata last; its signature is added per attempt.

export const PAYLOAD_VERSION = '1.0';

export const FORM_FIELDS = [
  'phone_number',
  'email',
  'first_name',
  'last_name',
  'address',
  'city',
  'state',
  'zip',
  'country',
  'company_name',
  'tags',
  'custom_fields',
] as const;

const BASIC = ['phone_number', 'first_name', 'last_name'];
const CONTACT = [...BASIC, 'email'];
const FULL = [...CONTACT, 'address', 'city', 'state', 'zip', 'country'];
const ALL = [...FULL, 'company_name', 'tags', 'custom_fields'];

/** The list selection presets and the fields each fills in. */
export const LIST_SELECTIONS: Record<Exclude<ListSelectionName, 'Custom'>, readonly string[]> = {
  Basic: BASIC,
  Contact: CONTACT,
  Full: FULL,
  All: ALL,
};
export const SELECTION_NAMES = LIST_SELECTION_NAMES;

/** A form data name: one of FORM_FIELDS, or custom_fields.<key>. */
export const isFormField = (name: string) =>
  (FORM_FIELDS as readonly string[]).includes(name) || /^custom_fields\.[A-Za-z0-9_-]{1,64}$/.test(name);

/** The preset a field list equals, or Custom. */
export function selectionOf(fields: readonly string[]): string {
  const sorted = [...fields].sort().join(',');
  return Object.entries(LIST_SELECTIONS).find(([, preset]) => [...preset].sort().join(',') === sorted)?.[0] ?? 'Custom';
}

/** The contact with only the selected fields (null when the event concerns no contact). */
export function selectContact(
  contact: ContactFields | null,
  fields: readonly string[],
): Record<string, unknown> | null {
  if (!contact) return null;
  const out: Record<string, unknown> = {};
  const custom = (contact.custom_fields ?? {}) as Record<string, unknown>;
  for (const field of fields) {
    if (field.startsWith('custom_fields.')) {
      const key = field.slice('custom_fields.'.length);
      const bag = (out.custom_fields ??= {}) as Record<string, unknown>;
      bag[key] = custom[key] ?? null;
    } else if (field === 'custom_fields') {
      out.custom_fields = { ...((out.custom_fields as object) ?? {}), ...custom };
    } else {
      out[field] = contact[field] ?? null;
    }
  }
  return out;
}

export function payloadText(args: {
  event: string;
  occurredAt: Date;
  webhookId: number;
  data: Record<string, unknown>;
  contact: Record<string, unknown> | null;
}): string {
  return JSON.stringify({
    event: args.event,
    timestamp: args.occurredAt.toISOString(),
    webhook_id: String(args.webhookId),
    data: { ...args.data, contact: args.contact },
    metadata: { version: PAYLOAD_VERSION },
  });
}

const ulid = ulidFactory();

/** A delivery id: msg_ + a ULID (sortable by creation, unique). */
export const newDeliveryId = () => `msg_${ulid()}`;
