import type { DomainEvent } from '../../events/recorder.js';

// What a delivery concerns, so a support agent can ask "did call 5012's
// webhooks arrive?" across every webhook of the company: `call:5012`,
// `campaign:12`, `agent:7`, `contact:3`, read from the event's data and its
// contact when it has them; and `webhook:4` for an operator event about
// webhook 4 (which is never delivered to webhook 4 itself).

export const SUBJECT_KINDS = ['call', 'campaign', 'agent', 'contact'] as const;
export type SubjectKind = (typeof SUBJECT_KINDS)[number];

export const subject = (kind: SubjectKind, id: string | number) => `${kind}:${id}`;

export function subjectsOf(event: Pick<DomainEvent, 'data' | 'contact'>): string[] {
  const found: string[] = [];
  for (const kind of ['call', 'campaign', 'agent'] as const) {
    const id = event.data[`${kind}_id`];
    if (typeof id === 'string' && id !== '') found.push(subject(kind, id));
  }
  const contact = event.contact?.contact_id;
  if (typeof contact === 'string' && contact !== '') found.push(subject('contact', contact));
  const webhook = aboutWebhook(event);
  if (webhook !== undefined) found.push(webhookSubject(webhook));
  return found;
}

export const webhookSubject = (webhookId: number) => `webhook:${webhookId}`;

/** The webhook an operator event is about (its data's webhook_id), if any. */
export function aboutWebhook(event: Pick<DomainEvent, 'data'>): number | undefined {
  const id = event.data.webhook_id;
  return typeof id === 'string' && /^[1-9]\d{0,9}$/.test(id) ? Number(id) : undefined;
}
