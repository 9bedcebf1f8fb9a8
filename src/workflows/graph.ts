import { DEFAULT_BOUNDS } from '../kernel/bounds.js';
import type { FieldErrors } from '../kernel/errors.js';
import type { TriggerConfig } from '../kernel/workflow.js';
import { ACTIONS, TRIGGERS, type CatalogEntry, type ConfigField } from './catalog.js';

// Checks a workflow's trigger_config graph against the catalogs (docs/design.md
// §8). Returns field errors keyed by path, each message naming the node.

export const GRAPH_LIMITS = { nodes: 200, edges: 1000 } as const;
/** The longest node id, in characters. */
export const NODE_ID_MAX = 100;

const catalogs = {
  trigger: new Map(TRIGGERS.map((entry) => [entry.type, entry])),
  action: new Map(ACTIONS.map((entry) => [entry.type, entry])),
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function fieldProblem(field: ConfigField, value: unknown): string | undefined {
  switch (field.type) {
    case 'string':
      if (typeof value !== 'string') return 'must be a string';
      if (value.length > (field.max ?? DEFAULT_BOUNDS.text.maxLength))
        return `must not be longer than ${field.max ?? DEFAULT_BOUNDS.text.maxLength} characters`;
      break;
    case 'integer':
      if (!Number.isInteger(value)) return 'must be an integer';
      if (field.min !== undefined && (value as number) < field.min) return `must be at least ${field.min}`;
      break;
    case 'boolean':
      if (typeof value !== 'boolean') return 'must be true or false';
      break;
    case 'string[]':
      if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) return 'must be an array of strings';
      break;
    case 'object':
      if (!isObject(value)) return 'must be an object';
      break;
  }
  if (field.enum && !field.enum.includes(value as string)) return `must be one of ${field.enum.join(', ')}`;
  return undefined;
}

function checkConfig(entry: CatalogEntry, config: unknown, describe: string, path: string, errors: FieldErrors) {
  const add = (key: string, text: string) => (errors[key] ??= []).push(text);
  if (config === undefined || config === null) config = {};
  if (!isObject(config)) return add(`${path}.config`, `${describe}: config must be an object.`);
  for (const [name, field] of Object.entries(entry.config)) {
    const value = config[name];
    if (value === undefined || value === null || value === '') {
      if (field.required) add(`${path}.config.${name}`, `${describe}: the ${name} field is required.`);
      continue;
    }
    const problem = fieldProblem(field, value);
    if (problem) add(`${path}.config.${name}`, `${describe}: the ${name} field ${problem}.`);
  }
  for (const name of Object.keys(config)) {
    if (!(name in entry.config))
      add(`${path}.config.${name}`, `${describe}: ${name} is not a setting of ${entry.type}.`);
  }
  if (entry.type === 'send_webhook' && typeof config.url === 'string' && !/^https?:\/\/[^\s]+$/i.test(config.url)) {
    add(`${path}.config.url`, `${describe}: the url field must be an http or https URL.`);
  }
}

/** Field errors for a trigger_config graph; empty when it is valid. Absent or empty graphs are valid drafts. */
export function graphErrors(graph: unknown, prefix = 'trigger_config'): FieldErrors {
  const errors: FieldErrors = {};
  const add = (key: string, text: string) => (errors[key] ??= []).push(text);
  if (graph === undefined || graph === null) return errors;
  if (!isObject(graph)) return { [prefix]: ['The trigger config must be an object with nodes and edges.'] };
  const nodes = graph.nodes ?? [];
  const edges = graph.edges ?? [];
  if (!Array.isArray(nodes)) add(`${prefix}.nodes`, 'The nodes field must be an array.');
  if (!Array.isArray(edges)) add(`${prefix}.edges`, 'The edges field must be an array.');
  if (!Array.isArray(nodes) || !Array.isArray(edges)) return errors;
  if (nodes.length > GRAPH_LIMITS.nodes)
    return { [`${prefix}.nodes`]: [`A workflow holds at most ${GRAPH_LIMITS.nodes} nodes.`] };
  if (edges.length > GRAPH_LIMITS.edges)
    return { [`${prefix}.edges`]: [`A workflow holds at most ${GRAPH_LIMITS.edges} edges.`] };
  if (nodes.length === 0) {
    if (edges.length > 0) add(`${prefix}.edges`, 'Edges need nodes.');
    return errors;
  }

  const kinds = new Map<string, string>();
  nodes.forEach((node, i) => {
    const path = `${prefix}.nodes.${i}`;
    if (!isObject(node)) return add(path, `Node ${i} must be an object.`);
    const id = typeof node.id === 'string' && node.id.trim() !== '' ? node.id : undefined;
    const describe = `Node "${id ?? i}"${typeof node.type === 'string' ? ` (${node.type})` : ''}`;
    if (!id) add(`${path}.id`, `Node ${i}: the id field is required.`);
    else if (id.length > NODE_ID_MAX)
      add(`${path}.id`, `Node ${i}: the id must not be longer than ${NODE_ID_MAX} characters.`);
    else if (kinds.has(id)) add(`${path}.id`, `${describe}: the id is used by another node.`);
    if (node.kind !== 'trigger' && node.kind !== 'action')
      return add(`${path}.kind`, `${describe}: kind must be trigger or action.`);
    if (id) kinds.set(id, node.kind);
    const entry = typeof node.type === 'string' ? catalogs[node.kind].get(node.type) : undefined;
    if (!entry) return add(`${path}.type`, `${describe}: ${String(node.type)} is not in the ${node.kind} catalog.`);
    checkConfig(entry, node.config, describe, path, errors);
  });
  if (![...kinds.values()].includes('trigger') && !Object.keys(errors).some((k) => k.endsWith('.kind'))) {
    add(`${prefix}.nodes`, 'A workflow needs at least one trigger node.');
  }

  const next = new Map<string, string[]>();
  edges.forEach((edge, i) => {
    const path = `${prefix}.edges.${i}`;
    if (!isObject(edge)) return add(path, `Edge ${i} must be an object with from and to.`);
    for (const end of ['from', 'to'] as const) {
      if (typeof edge[end] !== 'string' || !kinds.has(edge[end] as string))
        add(`${path}.${end}`, `Edge ${i}: ${end} names no node ("${String(edge[end])}").`);
    }
    if (typeof edge.to === 'string' && kinds.get(edge.to) === 'trigger')
      add(`${path}.to`, `Edge ${i}: node "${edge.to}" is a trigger and cannot follow another node.`);
    if (typeof edge.from === 'string' && typeof edge.to === 'string')
      next.set(edge.from, [...(next.get(edge.from) ?? []), edge.to]);
  });

  const cycleAt = nodeOnCycle([...kinds.keys()], next);
  if (cycleAt) add(`${prefix}.edges`, `Node "${cycleAt}" is part of a cycle; a workflow must not loop.`);
  return errors;
}

/**
 * A node on a cycle, or undefined. Kahn's algorithm, iterative (no input can
 * exhaust the stack): what cannot be ordered lies on or behind a cycle; a walk
 * from there along unordered nodes must come back to one it passed.
 */
function nodeOnCycle(ids: string[], next: Map<string, string[]>): string | undefined {
  const incoming = new Map<string, number>(ids.map((id) => [id, 0]));
  for (const targets of next.values()) for (const to of targets) incoming.set(to, (incoming.get(to) ?? 0) + 1);
  const ready = ids.filter((id) => incoming.get(id) === 0);
  while (ready.length > 0) {
    for (const to of next.get(ready.pop()!) ?? []) {
      const left = incoming.get(to)! - 1;
      incoming.set(to, left);
      if (left === 0) ready.push(to);
    }
  }
  const unordered = ids.find((id) => incoming.get(id)! > 0);
  if (unordered === undefined) return undefined;
  const passed = new Set<string>();
  let current = unordered;
  while (!passed.has(current)) {
    passed.add(current);
    current = (next.get(current) ?? []).find((to) => incoming.get(to)! > 0)!;
  }
  return current;
}

/** A valid graph with only the keys the catalogs name: extra keys of the graph, nodes, edges and configs are dropped. */
export function sanitizeGraph(graph: TriggerConfig): TriggerConfig {
  const nodes = (graph.nodes ?? []).map((node) => {
    const entry = catalogs[node.kind].get(node.type)!;
    const config: Record<string, unknown> = {};
    for (const name of Object.keys(entry.config)) {
      if (node.config?.[name] !== undefined) config[name] = node.config[name];
    }
    return { id: node.id, kind: node.kind, type: node.type, config };
  });
  return { nodes, edges: (graph.edges ?? []).map((edge) => ({ from: edge.from, to: edge.to })) };
}
