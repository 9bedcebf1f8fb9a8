import type { DomainEvent } from '../events/recorder.js';

// What a delivery concerns, so a support agent can ask "did call 5012's
// webhooks arrive?" across every webhook of the company: `call:5012`,
// `campaign:12`, `agent:7`, `contact:3`, read from the event's data and its
// contact when it has them.

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
  return found;
}
