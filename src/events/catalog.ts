// The twenty-five domain events: the spec's sixteen, call.analyzed, four of the dialer's and four operator events about
// the webhooks themselves; their names, categories, the JSON Schema of each
// event's `data` and an example. The event-types route, docs/webhooks.md and
// the test sends all read this one source, and each event is also a trigger
// of the workflow builder (src/workflows/catalog.ts).

import { CONTACT_EXAMPLE, contact, SPECS, type Schema } from './schemas.js';
import { EVENT_TYPES, type EventType } from './types.js';

export { EVENT_NAMES, EVENT_TYPES, type EventType, isEventType, isOperatorEvent, OPERATOR_EVENTS } from './types.js';

export interface EventTypeDoc {
  name: EventType;
  category: string;
  description: string;
  schema: Schema;
  example: Record<string, unknown>;
}

/** Each event's documentation: the JSON Schema of its `data` (contact included) and an example `data`. */
export const EVENT_DOCS: readonly EventTypeDoc[] = EVENT_TYPES.map(([name, category, description]) => {
  const spec = SPECS[name];
  return {
    name,
    category,
    description,
    schema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { ...spec.properties, contact },
      required: [...spec.required, 'contact'],
      additionalProperties: false,
    },
    example: {
      ...spec.example,
      contact: ['agent', 'campaign', 'operator'].includes(category) ? null : CONTACT_EXAMPLE,
    },
  };
});

export const eventDoc = (name: EventType): EventTypeDoc => EVENT_DOCS.find((doc) => doc.name === name)!;
