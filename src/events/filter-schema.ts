// The payload filters' grammar (webhooks/config/filters.ts reads and checks
// filters) as JSON Schema, for the REST document's code generators, with the
// bounds a saved filter is held to.

/** A filter's nodes, levels, list items and path characters at most, and its whole JSON text's characters. */
export const FILTER_LIMITS = { nodes: 50, depth: 5, list: 100, path: 200, text: 16_384 } as const;
export const ORDER = ['gt', 'gte', 'lt', 'lte'] as const;

/** Where the REST document names the whole grammar (components.schemas), a node referring to itself. */
export const FILTER_SCHEMA_REF = '#/components/schemas/WebhookFilterNode';

/**
 * A filter node: a comparison, or a group of `nested` nodes. The document's
 * component nests itself (FILTER_SCHEMA_REF); a request body, which names no
 * component, states the first level and leaves the nested ones as objects.
 * What a schema cannot say (at most 50 nodes and 5 levels, every path known to
 * the event, each value of its field's type) is checked when a filter is saved.
 */
export function filterJsonSchema(nested: Record<string, unknown>): Record<string, unknown> {
  // A string value is bounded by the filter's whole text.
  const scalar = { type: ['string', 'number', 'boolean', 'null'], maxLength: FILTER_LIMITS.text };
  const list = { type: 'array', minItems: 1, maxItems: FILTER_LIMITS.list, items: scalar };
  const group = (op: string) => ({
    type: 'object',
    required: [op],
    properties: { [op]: { type: 'array', minItems: 1, maxItems: FILTER_LIMITS.nodes, items: nested } },
    additionalProperties: false,
  });
  const order = {
    type: ['number', 'string'],
    maxLength: 40,
    description: 'A number, or an ISO 8601 date-time for a date-time field',
  };
  return {
    example: { path: 'call_direction', eq: 'inbound' },
    description: `A payload filter: at most ${FILTER_LIMITS.nodes} nodes, ${FILTER_LIMITS.depth} deep (docs/webhooks.md, Filters)`,
    oneOf: [
      group('and'),
      group('or'),
      { type: 'object', required: ['not'], properties: { not: nested }, additionalProperties: false },
      {
        type: 'object',
        description: 'A comparison: a path of the event data and exactly one operator',
        required: ['path'],
        minProperties: 2,
        maxProperties: 2,
        properties: {
          path: { type: 'string', minLength: 1, maxLength: FILTER_LIMITS.path },
          eq: scalar,
          ne: scalar,
          in: list,
          nin: list,
          ...Object.fromEntries(ORDER.map((op) => [op, order])),
          exists: { type: 'boolean' },
        },
        additionalProperties: false,
      },
    ],
  };
}
