import { DEFAULT_BOUNDS } from '../kernel/bounds.js';
import { ACTIONS, TRIGGERS, type CatalogEntry, type ConfigField } from './catalog.js';
import { GRAPH_LIMITS, NODE_ID_MAX } from './graph.js';

// The JSON Schema of a trigger_config graph, made from the same catalogs and
// limits graph.ts checks a graph against: a node per catalog entry (its kind,
// its type, its config's fields), and the edges between node ids. The REST
// rows state it for trigger_config, so a generated client types the graph.
// (What a schema cannot say, graph.ts still checks: unique ids, edges that
// name nodes, a trigger first, no cycle.)

type Schema = Record<string, unknown>;

function fieldSchema(field: ConfigField): Schema {
  const described = field.description ? { description: field.description } : {};
  switch (field.type) {
    case 'string':
      return field.enum
        ? { ...described, type: 'string', enum: [...field.enum] }
        : { ...described, type: 'string', maxLength: field.max ?? DEFAULT_BOUNDS.text.maxLength };
    case 'integer':
      return {
        ...described,
        type: 'integer',
        format: 'int32',
        minimum: field.min ?? DEFAULT_BOUNDS.integer.minimum,
        maximum: DEFAULT_BOUNDS.integer.maximum,
      };
    case 'boolean':
      return { ...described, type: 'boolean' };
    case 'string[]':
      return {
        ...described,
        type: 'array',
        items: { type: 'string', maxLength: DEFAULT_BOUNDS.text.maxLength },
        maxItems: DEFAULT_BOUNDS.array.maxItems,
      };
    case 'object':
      return { ...described, type: 'object', additionalProperties: true };
  }
}

const nodeId = { type: 'string', minLength: 1, maxLength: NODE_ID_MAX };

function nodeSchema(kind: 'trigger' | 'action', entry: CatalogEntry): Schema {
  const required = Object.entries(entry.config)
    .filter(([, field]) => field.required)
    .map(([name]) => name);
  return {
    type: 'object',
    title: entry.name,
    description: entry.description,
    properties: {
      id: { ...nodeId, description: 'Unique within the graph' },
      kind: { type: 'string', const: kind },
      type: { type: 'string', const: entry.type },
      config: {
        type: 'object',
        properties: Object.fromEntries(Object.entries(entry.config).map(([name, field]) => [name, fieldSchema(field)])),
        ...(required.length ? { required } : {}),
        additionalProperties: false,
      },
    },
    required: ['id', 'kind', 'type', ...(required.length ? ['config'] : [])],
    additionalProperties: false,
  };
}

/** The graph: its nodes, one of the catalogs' entries each, and its edges. */
export function triggerConfigSchema(): Schema {
  return {
    type: 'object',
    properties: {
      nodes: {
        type: 'array',
        maxItems: GRAPH_LIMITS.nodes,
        items: {
          oneOf: [
            ...TRIGGERS.map((entry) => nodeSchema('trigger', entry)),
            ...ACTIONS.map((entry) => nodeSchema('action', entry)),
          ],
        },
      },
      edges: {
        type: 'array',
        maxItems: GRAPH_LIMITS.edges,
        items: {
          type: 'object',
          properties: {
            from: { ...nodeId, description: 'A node id' },
            to: { ...nodeId, description: 'A node id; not a trigger' },
          },
          required: ['from', 'to'],
          additionalProperties: false,
        },
      },
    },
    additionalProperties: false,
  };
}
