import { GraphQLError } from 'graphql';
import type { IdCodec } from '../kernel/ids.js';
import { appErrorOf, NotFoundError, ValidationError, type FieldErrors } from '../kernel/errors.js';
import { DEFAULT_BOUNDS } from '../kernel/bounds.js';
import { INT32, jsonProblem, message } from '../kernel/validation.js';
import type { Param, ResolvedRoute } from './route.js';

// Reads a route's parameters from path, query and body, checks their types
// (422 naming each field), and turns them into the operation's variables.

export const camelCase = (name: string) => name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const INTEGER_TEXT = /^-?\d{1,12}$/;

/** Longer than max characters (code points, as Rules.maxChars counts); the count is made only for a long string. */
const tooLong = (text: string, max: number) => text.length > max && [...text].length > max;

const snakeCase = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** The type errors of one request, by field: made only for a request that has one. */
class Problems {
  errors?: FieldErrors;

  add(field: string, text: string): void {
    ((this.errors ??= {})[field] ??= []).push(text);
  }
}

/** What is wrong with a free JSON value: its size and depth, and the keys its document allows (maxProperties). */
function freeObjectProblem(field: string, param: Param, raw: unknown): string | undefined {
  const problem = jsonProblem(raw);
  if (problem) return `The ${field} field ${problem}.`;
  if (param.maxProperties !== undefined && isPlainObject(raw)) {
    const keys = Object.keys(raw).length;
    if (keys > param.maxProperties) return message.maxProperties(field, param.maxProperties, keys);
  }
  return undefined;
}

function coerce(field: string, param: Param, raw: unknown, problems: Problems, fromText: boolean): unknown {
  if (raw === null && param.nullable) return null;
  if (raw === undefined || raw === null || (fromText && raw === '')) {
    if (param.required) problems.add(field, message.required(field));
    return raw === null && !fromText ? null : undefined;
  }
  let value: unknown;
  switch (param.type) {
    case 'string':
      if (typeof raw !== 'string') return void problems.add(field, message.string(field));
      if (raw.includes('\u0000')) return void problems.add(field, message.nul(field));
      if (param.required && raw.trim() === '') return void problems.add(field, message.required(field));
      // A field's own bound is its service's rule (bounds.ts), checked with the service's other rules so one
      // answer names every problem; a field without one is held here to the default.
      if (param.maxLength === undefined && tooLong(raw, DEFAULT_BOUNDS.text.maxLength))
        return void problems.add(field, message.maxChars(field, DEFAULT_BOUNDS.text.maxLength));
      value = raw;
      break;
    case 'id':
      if (typeof raw !== 'string' && !Number.isInteger(raw)) return void problems.add(field, message.string(field));
      if (typeof raw === 'string' && raw.includes('\u0000')) return void problems.add(field, message.nul(field));
      value = String(raw);
      break;
    case 'integer':
      if (Number.isInteger(raw)) value = raw;
      else if (typeof raw === 'string' && INTEGER_TEXT.test(raw.trim())) value = Number(raw.trim());
      else return void problems.add(field, message.integer(field));
      if ((value as number) < INT32.min || (value as number) > INT32.max)
        return void problems.add(field, message.int32(field));
      break;
    case 'number':
      if (typeof raw === 'number' && Number.isFinite(raw)) value = raw;
      else if (typeof raw === 'string' && /^-?\d{1,9}(\.\d{1,9})?$/.test(raw.trim())) value = Number(raw.trim());
      else return void problems.add(field, message.number(field));
      break;
    case 'boolean':
      if (typeof raw === 'boolean') value = raw;
      else if (fromText && ['true', '1'].includes(String(raw))) value = true;
      else if (fromText && ['false', '0'].includes(String(raw))) value = false;
      else return void problems.add(field, message.boolean(field));
      break;
    case 'array':
      // In a query string a list is also written comma-separated (types=call.started,call.ended).
      if (fromText && typeof raw === 'string') raw = raw.split(',');
      if (!Array.isArray(raw)) return void problems.add(field, message.array(field));
      if (raw.length > DEFAULT_BOUNDS.array.maxItems)
        return void problems.add(field, message.maxItems(field, DEFAULT_BOUNDS.array.maxItems));
      value = raw.map((item, i) => coerce(`${field}.${i}`, { ...param.items!, required: true }, item, problems, false));
      break;
    case 'object':
      if (!isPlainObject(raw)) return void problems.add(field, message.object(field));
      // Without declared fields the object passes as it is (a JSON scalar such as trigger_config), once bounded.
      if (!param.fields) {
        const problem = freeObjectProblem(field, param, raw);
        if (problem) return void problems.add(field, problem);
      }
      value = param.fields ? collect(param.fields, raw, problems, false, `${field}.`) : raw;
      break;
    case 'json': {
      const problem = freeObjectProblem(field, param, raw);
      if (problem) return void problems.add(field, problem);
      value = raw;
      break;
    }
  }
  if (param.enum && !param.enum.includes(value as string))
    return void problems.add(field, message.oneOf(field, value, param.enum));
  if (param.every !== undefined && value === param.every) return undefined;
  return param.graphqlNames?.[value as string] ?? value;
}

function collect(
  params: Record<string, Param>,
  source: Record<string, unknown>,
  problems: Problems,
  fromText: boolean,
  prefix = '',
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, param, variable] of fieldsOf(params)) {
    const raw =
      source[name] !== undefined
        ? source[name]
        : param.aliases?.map((alias) => source[alias]).find((v) => v !== undefined);
    const value = coerce(prefix ? `${prefix}${name}` : name, param, raw, problems, fromText);
    if (value !== undefined) out[variable] = value;
  }
  return out;
}

const NONE: Record<string, Param> = {};

/** Each parameter of a group with the variable it fills, listed once per group (rows are read at every request). */
const fields = new WeakMap<Record<string, Param>, Array<[string, Param, string]>>();
function fieldsOf(params: Record<string, Param>): Array<[string, Param, string]> {
  let list = fields.get(params);
  if (!list)
    fields.set(
      params,
      (list = Object.entries(params).map(([name, param]) => [name, param, param.variable ?? camelCase(name)])),
    );
  return list;
}

export interface RawRequest {
  path: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
}

/** What a 404 calls a path id's record: its label, else its kind ("spam_protected_number": "Spam protected number"). */
export function recordName(param: Param): string {
  const kind = param.idKind!.replace(/_/g, ' ');
  return param.idLabel ?? kind[0].toUpperCase() + kind.slice(1);
}

/** Path ids first (404 for a form the route does not take), then every other field (422). */
export function variablesFor(route: ResolvedRoute, request: RawRequest, ids: IdCodec): Record<string, unknown> {
  for (const [name, param] of Object.entries(route.params.path ?? {})) {
    if (param.type !== 'id') continue;
    const id = ids.decode(request.path[name], param.idKind!, param.idForms);
    if (id === undefined) throw new NotFoundError(recordName(param));
    // Decoded once here, in the form the row accepts; the operation receives the plain number.
    request.path[name] = String(id);
  }
  const problems = new Problems();
  const body = isPlainObject(request.body) ? request.body : {};
  const variables = {
    ...collect(route.params.path ?? NONE, request.path, problems, true),
    ...collect(route.params.query ?? NONE, request.query, problems, true),
    ...collect(route.params.body ?? NONE, body, problems, false),
  };
  if (problems.errors) throw new ValidationError(problems.errors);
  return variables;
}

/** The row's parameters by the GraphQL name each fills (a variable, or a field of an input object). */
function byVariable(fields: Record<string, Param> | undefined): Map<string, [string, Param]> {
  return new Map(
    Object.entries(fields ?? {}).map(([name, param]) => [param.variable ?? camelCase(name), [name, param]]),
  );
}

/**
 * `formData.2` becomes `form_data.2`, `credentials.tls.clientKey` becomes
 * `credentials.tls.client_key`: each segment the row's name for it (a field
 * of an input object too); an index, or a segment the row does not know
 * below the first, as it is.
 */
function restKey(key: string, route: ResolvedRoute): string {
  const [root, ...rest] = key.split('.');
  const top = byVariable({ ...route.params.path, ...route.params.query, ...route.params.body }).get(root);
  const out = [top?.[0] ?? snakeCase(root)];
  let param = top?.[1];
  for (const segment of rest) {
    if (/^\d+$/.test(segment)) {
      out.push(segment);
      param = param?.items;
      continue;
    }
    const known = byVariable(param?.fields ?? param?.items?.fields).get(segment);
    out.push(known?.[0] ?? segment);
    param = known?.[1];
  }
  return out.join('.');
}

/**
 * The error a REST client gets for a failed operation: our typed errors, with
 * field errors renamed from the GraphQL names the services use to the row's
 * fields; GraphQL's own refusal of a variable (which the row's checks should
 * have caught first) as 422 naming the field, never a 500.
 */
export function restErrorOf(error: GraphQLError, route: ResolvedRoute): unknown {
  const known = appErrorOf(error);
  if (known instanceof ValidationError && known.fieldErrors) {
    return new ValidationError(
      Object.fromEntries(Object.entries(known.fieldErrors).map(([key, messages]) => [restKey(key, route), messages])),
    );
  }
  if (known) return known;
  const variable = /^Variable "\$(\w+)"/.exec(error.message)?.[1];
  if (variable && !error.originalError) {
    const field = restKey(variable, route);
    return ValidationError.field(field, message.invalid(field));
  }
  return error;
}
