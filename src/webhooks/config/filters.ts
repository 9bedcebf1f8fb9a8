import { EVENT_NAMES, eventDoc, isEventType, type EventType } from '../../events/catalog.js';
import { message, Rules } from '../../kernel/validation.js';
import { FORM_FIELDS } from './payload.js';
import { FILTER_LIMITS, ORDER } from '../../events/filter-schema.js';

// Payload filters (docs/webhooks.md, "Filters"): per webhook and event type, a
// small JSON language over paths of the event's `data`, so a subscriber that
// wants only inbound calls longer than a minute gets only those. A filter is
// checked once, when it is saved, against the event's JSON Schema (every path
// known, every value of the field's type), and evaluated in the outbox step:
// an event it rejects creates no delivery.
//
//   filter     := comparison | { "and": [filter, …] } | { "or": [filter, …] } | { "not": filter }
//   comparison := { "path": "call_duration", "<op>": value }, exactly one op:
//     eq, ne            a string, number, boolean or null
//     in, nin           a list of 1 to 100 of those
//     gt, gte, lt, lte  a number, or an ISO 8601 date-time for a date-time field
//     exists            true (present and not null) or false
// On a list field (tags), eq and in match when any element does; ne and nin
// when none does. Paths into `contact` see every field of the contact,
// whatever the webhook's form data selects.

export type FilterScalar = string | number | boolean | null;
export type Filter =
  | { and: Filter[] }
  | { or: Filter[] }
  | { not: Filter }
  | ({ path: string } & Partial<Record<Operator, unknown>>);

const { nodes: FILTER_NODES_MAX, depth: FILTER_DEPTH_MAX, list: LIST_MAX, path: PATH_MAX } = FILTER_LIMITS;
export { FILTER_DEPTH_MAX, FILTER_NODES_MAX };

const EQUALITY = ['eq', 'ne'] as const;
const MEMBERSHIP = ['in', 'nin'] as const;
const OPERATORS = [...EQUALITY, ...MEMBERSHIP, ...ORDER, 'exists'] as const;
type Operator = (typeof OPERATORS)[number];

/** A problem with a filter: where in it (`and.1`, empty for the root) and what. */
export interface FilterProblem {
  at: string;
  message: string;
}

type Schema = {
  type?: string | string[];
  enum?: unknown[];
  format?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: boolean;
  items?: Schema;
};

/** What a path reaches in the schema: a known field, or anything below a free object (custom fields). */
type Resolved = { schema: Schema } | { free: true } | { missing: string };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isScalar = (v: unknown): v is FilterScalar => v === null || ['string', 'number', 'boolean'].includes(typeof v);
const typesOf = (schema: Schema): string[] =>
  Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
const isDateTime = (v: unknown) =>
  typeof v === 'string' &&
  v.length <= 40 &&
  /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(v) &&
  !Number.isNaN(Date.parse(v));

/** The contact's fields as filters see them (every form field). */
const CONTACT_SCHEMA: Schema = {
  type: ['object', 'null'],
  properties: Object.fromEntries(
    FORM_FIELDS.map((f) => [
      f,
      f === 'tags'
        ? { type: 'array', items: { type: 'string' } }
        : f === 'custom_fields'
          ? { type: 'object', additionalProperties: true }
          : { type: ['string', 'null'] },
    ]),
  ),
  additionalProperties: false,
};

function resolve(event: EventType, path: string): Resolved {
  let schema: Schema = eventDoc(event).schema as Schema;
  const keys = path.split('.');
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const props: Record<string, Schema> = schema.properties ?? {};
    const known = Object.hasOwn(props, key) ? (i === 0 && key === 'contact' ? CONTACT_SCHEMA : props[key]) : undefined;
    if (known) schema = known;
    else if (typesOf(schema).includes('object') && schema.additionalProperties === true) return { free: true };
    else return { missing: keys.slice(0, i + 1).join('.') };
  }
  return { schema };
}

/** Whether `value` fits the field's schema (its element's, for a list field). */
function fits(schema: Schema, value: FilterScalar): boolean {
  const field = typesOf(schema).includes('array') && schema.items ? schema.items : schema;
  const types = typesOf(field);
  if (value === null) return types.includes('null') || typesOf(schema).includes('null');
  if (field.enum && !field.enum.includes(value)) return false;
  if (typeof value === 'string') return types.includes('string');
  if (typeof value === 'boolean') return types.includes('boolean');
  return types.includes('number') || (types.includes('integer') && Number.isInteger(value));
}

const describeType = (schema: Schema) => {
  const field = typesOf(schema).includes('array') && schema.items ? schema.items : schema;
  const types = typesOf(field).filter((t) => t !== 'null');
  if (field.enum) return `one of ${field.enum.filter((v) => v !== null).join(', ')}`;
  return `a ${types.join(' or ')}${typesOf(schema).includes('null') ? ' or null' : ''}`;
};

/**
 * Every problem of `filter` for `event`: its shape, its bounds (at most 50
 * nodes, 5 deep), each path (known to the event's data) and each value (of the
 * field's type). None means it may be saved.
 */
export function filterProblems(event: EventType, filter: unknown): FilterProblem[] {
  const problems: FilterProblem[] = [];
  let nodes = 0;
  const walk = (node: unknown, at: string, depth: number): void => {
    const here = (message: string) => void problems.push({ at, message });
    nodes++;
    if (depth > FILTER_DEPTH_MAX) return here(`A filter may nest at most ${FILTER_DEPTH_MAX} levels deep.`);
    if (!isObject(node)) return here('A filter node must be an object: a comparison, or and, or, not.');
    const keys = Object.keys(node);
    const child = (key: string) => (at ? `${at}.${key}` : key);
    if (keys.length === 1 && (keys[0] === 'and' || keys[0] === 'or')) {
      const list = node[keys[0]];
      if (!Array.isArray(list) || list.length === 0) return here(`${keys[0]} takes a list of one or more filters.`);
      return list.forEach((item, i) => walk(item, child(`${keys[0]}.${i}`), depth + 1));
    }
    if (keys.length === 1 && keys[0] === 'not') return walk(node.not, child('not'), depth + 1);
    const ops = keys.filter((k) => k !== 'path');
    if (!keys.includes('path') || ops.length !== 1 || !(OPERATORS as readonly string[]).includes(ops[0])) {
      return here(
        `A comparison has a path and exactly one of ${OPERATORS.join(', ')}; a group is and, or or not alone.`,
      );
    }
    const op = ops[0] as Operator;
    const path = node.path;
    if (typeof path !== 'string' || !/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/.test(path) || path.length > PATH_MAX) {
      return here(`The path must be field names joined by dots, at most ${PATH_MAX} characters.`);
    }
    const target = resolve(event, path);
    if ('missing' in target)
      return here(`The path ${path} is not in the data of ${event} (${target.missing} is not one of its fields).`);
    const value = node[op];
    const schema = 'schema' in target ? target.schema : undefined;
    const checkScalar = (v: unknown): string | undefined => {
      if (!isScalar(v)) return `${op} takes a string, number, boolean or null.`;
      if (schema && !fits(schema, v)) return `${path} is ${describeType(schema)}; ${JSON.stringify(v)} is not.`;
      return undefined;
    };
    if (op === 'exists') {
      if (typeof value !== 'boolean') here('exists takes true or false.');
    } else if ((EQUALITY as readonly string[]).includes(op)) {
      const problem = checkScalar(value);
      if (problem) here(problem);
    } else if ((MEMBERSHIP as readonly string[]).includes(op)) {
      if (!Array.isArray(value) || value.length === 0 || value.length > LIST_MAX)
        return here(`${op} takes a list of 1 to ${LIST_MAX} values.`);
      const problem = value.map(checkScalar).find(Boolean);
      if (problem) here(problem);
    } else {
      const numeric = schema
        ? typesOf(schema).some((t) => t === 'number' || t === 'integer')
        : typeof value === 'number';
      const dated = schema ? schema.format === 'date-time' : isDateTime(value);
      if (schema && !numeric && !dated)
        here(`${path} is ${describeType(schema)}; ${op} compares numbers and date-times only.`);
      else if (numeric && typeof value !== 'number') here(`${path} is a number; ${op} takes a number.`);
      else if (dated && !isDateTime(value)) here(`${path} is a date-time; ${op} takes an ISO 8601 date-time.`);
      else if (!schema && typeof value !== 'number' && !isDateTime(value))
        here(`${op} takes a number or an ISO 8601 date-time.`);
    }
  };
  walk(filter, '', 1);
  if (nodes > FILTER_NODES_MAX)
    problems.unshift({
      at: '',
      message: `A filter may have at most ${FILTER_NODES_MAX} nodes; this one has ${nodes}.`,
    });
  return problems;
}

const order = (a: unknown, b: unknown): number | undefined => {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') {
    const [x, y] = [Date.parse(a), Date.parse(b)];
    return Number.isNaN(x) || Number.isNaN(y) ? undefined : x - y;
  }
  return undefined;
};

/** What a filter asks of an event's data (the data, with the whole contact). */
export type FilterPredicate = (data: Record<string, unknown>) => boolean;

/** What the path (split at its dots) reaches in `data`; undefined when some key on the way is missing. */
function reader(path: string): (data: unknown) => unknown {
  const keys = path.split('.');
  return (data) => {
    let here = data;
    for (const key of keys) {
      if (!isObject(here) || !Object.hasOwn(here, key)) return undefined;
      here = here[key];
    }
    return here;
  };
}

const equalTo = (expected: unknown) => (value: unknown) => value === expected;
const oneOf = (list: unknown[]) => (value: unknown) => list.includes(value);

/** Whether `test` holds for the value, or for any element of a list. */
const anyOf = (actual: unknown, test: (value: unknown) => boolean) =>
  Array.isArray(actual) ? actual.some(test) : test(actual);

/**
 * A filter that was checked by filterProblems, made into a predicate once:
 * its paths split and its operators chosen, so an event is only compared.
 */
export function compileFilter(filter: Filter): FilterPredicate {
  if ('and' in filter) {
    const parts = filter.and.map(compileFilter);
    return (data) => parts.every((part) => part(data));
  }
  if ('or' in filter) {
    const parts = filter.or.map(compileFilter);
    return (data) => parts.some((part) => part(data));
  }
  if ('not' in filter) {
    const inner = compileFilter(filter.not);
    return (data) => !inner(data);
  }
  const at = reader(filter.path);
  if ('exists' in filter) {
    const wanted = filter.exists;
    return (data) => {
      const actual = at(data);
      return (actual !== undefined && actual !== null) === wanted;
    };
  }
  if ('eq' in filter || 'in' in filter) {
    const test = 'eq' in filter ? equalTo(filter.eq) : oneOf(filter.in as unknown[]);
    return (data) => {
      const actual = at(data);
      return actual !== undefined && anyOf(actual, test);
    };
  }
  if ('ne' in filter || 'nin' in filter) {
    const test = 'ne' in filter ? equalTo(filter.ne) : oneOf(filter.nin as unknown[]);
    return (data) => !anyOf(at(data), test);
  }
  const [op] = ORDER.filter((o) => o in filter);
  const bound = filter[op];
  const holds =
    op === 'gt'
      ? (cmp: number) => cmp > 0
      : op === 'gte'
        ? (cmp: number) => cmp >= 0
        : op === 'lt'
          ? (cmp: number) => cmp < 0
          : (cmp: number) => cmp <= 0;
  return (data) => {
    const cmp = order(at(data), bound);
    return cmp !== undefined && holds(cmp);
  };
}

/** Whether `data` (the event's data, with the whole contact) passes a filter that was checked by filterProblems. */
export const filterMatches = (filter: Filter, data: Record<string, unknown>): boolean => compileFilter(filter)(data);

const compiled = new Map<string, FilterPredicate>();

/**
 * The predicate of a filter given as its stored JSON text (as the outbox
 * reads it), made once per text and kept (at most a thousand; then made
 * afresh): a webhook's filter is compared with every event of its type.
 */
export function filterOfText(text: string): FilterPredicate {
  let predicate = compiled.get(text);
  if (predicate === undefined) {
    if (compiled.size >= 1000) compiled.clear();
    compiled.set(text, (predicate = compileFilter(JSON.parse(text) as Filter)));
  }
  return predicate;
}

/** A webhook's filters, as stored: at most one per event type it subscribes to. */
export type StoredFilters = Partial<Record<EventType, Filter>>;

export interface WebhookFilterRecord {
  event: EventType;
  filter: Filter;
}

/** The filters as served, in the catalog's event order. */
export const filterRecords = (stored: StoredFilters | null | undefined): WebhookFilterRecord[] =>
  EVENT_NAMES.filter((name) => stored?.[name]).map((event) => ({ event, filter: stored![event]! }));

/** The longest filter, as JSON text. */
export const FILTER_TEXT_MAX = FILTER_LIMITS.text;

export interface WebhookFilterInput {
  event: string;
  filter: unknown;
}

/** Field errors of a filter, keyed under `field` and the node's place in it (`filters.0.filter.and.1`). */
export function addFilterProblems(rules: Rules, field: string, event: EventType, filter: unknown): void {
  if (JSON.stringify(filter ?? null).length > FILTER_TEXT_MAX)
    return void rules.add(field, `The ${field} field must be at most ${FILTER_TEXT_MAX} characters of JSON.`);
  for (const problem of filterProblems(event, filter))
    rules.add(problem.at ? `${field}.${problem.at}` : field, problem.message);
}

/**
 * The filters to store: `input` checked (one per event, each of an event the
 * webhook subscribes to, each valid for its event's data) when given; when
 * left out, the current ones of events still subscribed (undefined: unchanged).
 */
export function filtersToStore(
  rules: Rules,
  input: WebhookFilterInput[] | null | undefined,
  events: string[],
  current: StoredFilters,
): StoredFilters | undefined {
  if (input === undefined || input === null) {
    const kept = Object.fromEntries(Object.entries(current).filter(([event]) => events.includes(event)));
    return Object.keys(kept).length === Object.keys(current).length ? undefined : kept;
  }
  const out: StoredFilters = {};
  input.forEach(({ event, filter }, i) => {
    if (!isEventType(event))
      return void rules.add(`filters.${i}.event`, message.oneOf(`filters.${i}.event`, event, EVENT_NAMES));
    if (!events.includes(event))
      return void rules.add(
        `filters.${i}.event`,
        `The webhook is not subscribed to ${event}: subscribe to it to filter it.`,
      );
    if (out[event])
      return void rules.add(
        `filters.${i}.event`,
        `The filters.${i}.event field repeats ${event}: give one filter per event (join conditions with and, or).`,
      );
    addFilterProblems(rules, `filters.${i}.filter`, event, filter);
    out[event] = filter as Filter;
  });
  return out;
}

/**
 * Checks a filter for an event (422 naming each bad path or value) and
 * tells whether `data` passes it: the event's documented example when no
 * data is given.
 */
export function testFilter(
  event: string,
  filter: unknown,
  data?: Record<string, unknown> | null,
): { matches: boolean } {
  const rules = new Rules();
  if (!isEventType(event)) rules.add('event', message.oneOf('event', event, EVENT_NAMES));
  else addFilterProblems(rules, 'filter', event, filter);
  rules.check();
  return { matches: filterMatches(filter as Filter, data ?? eventDoc(event as EventType).example) };
}
