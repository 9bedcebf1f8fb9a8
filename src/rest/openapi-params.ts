import { DEFAULT_BOUNDS, type Bound } from '../kernel/bounds.js';
import type { Param } from './route.js';

// The JSON Schema of a row's parameter: its type, its enum, and its bound
// (bounds.ts) as the keyword of the same name, the bound its service checks.
// A parameter without a bound of its own is stated with its type's default,
// which params.ts checks.

export type Schema = Record<string, unknown>;

/** The defaults a group of parameters is held to: a row's (checked by params.ts), or a callback's (bounded by its body). */
export type Defaults = { text: Required<Pick<Bound, 'maxLength'>> };

/** A provider callback's fields are bounded by its body: 64 KiB of form encoding (ingress.ts). */
export const INGRESS_BOUNDS: Defaults = { text: { maxLength: 64 * 1024 } };

const keywords = (param: Param, ...names: Array<keyof Bound>): Schema =>
  Object.fromEntries(
    names.filter((name) => param[name as keyof Param] !== undefined).map((name) => [name, param[name as keyof Param]]),
  );

export function paramSchema(param: Param, withDescription = true, defaults: Defaults = DEFAULT_BOUNDS): Schema {
  const base: Schema = withDescription && param.description ? { description: param.description } : {};
  switch (param.type) {
    case 'id':
      return { ...base, type: param.nullable ? ['string', 'null'] : 'string', maxLength: DEFAULT_BOUNDS.id.maxLength };
    case 'array':
      return {
        ...base,
        type: 'array',
        items: paramSchema(param.items!, true, defaults),
        maxItems: param.maxItems ?? DEFAULT_BOUNDS.array.maxItems,
      };
    case 'object':
      if (Object.keys(param.fields ?? {}).length) return { ...base, ...objectSchema(param.fields!, defaults) };
      // A free object: the schema the row states for it (a workflow graph), or any keys.
      return param.schema
        ? { ...param.schema, ...base, ...keywords(param, 'maxProperties') }
        : { ...base, type: 'object', additionalProperties: true, ...keywords(param, 'maxProperties') };
    case 'json':
      return param.schema
        ? { ...param.schema, ...base, ...keywords(param, 'maxProperties') }
        : { ...base, type: 'object', additionalProperties: true, ...keywords(param, 'maxProperties') };
    case 'integer':
      return {
        ...base,
        type: 'integer',
        format: 'int32',
        ...(param.enum ? { enum: [...param.enum] } : {}),
        minimum: param.minimum ?? (param.enum ? Math.min(...(param.enum as number[])) : DEFAULT_BOUNDS.integer.minimum),
        maximum: param.maximum ?? (param.enum ? Math.max(...(param.enum as number[])) : DEFAULT_BOUNDS.integer.maximum),
      };
    case 'string':
      if (param.enum) return { ...base, type: 'string', enum: [...param.enum] };
      return {
        ...base,
        type: 'string',
        maxLength: param.maxLength ?? defaults.text.maxLength,
        ...(param.pattern ? { pattern: param.pattern } : {}),
      };
    default:
      return { ...base, type: param.type, ...keywords(param, 'minimum', 'maximum') };
  }
}

export function objectSchema(fields: Record<string, Param>, defaults: Defaults = DEFAULT_BOUNDS): Schema {
  const required = Object.entries(fields)
    .filter(([, p]) => p.required && !p.aliases?.length)
    .map(([n]) => n);
  const aliases = Object.entries(fields).flatMap(([name, p]) =>
    (p.aliases ?? []).map(
      (alias) => [alias, { ...paramSchema(p, true, defaults), description: `Same as ${name}` }] as const,
    ),
  );
  return {
    type: 'object',
    properties: {
      ...Object.fromEntries(Object.entries(fields).map(([name, p]) => [name, paramSchema(p, true, defaults)])),
      ...Object.fromEntries(aliases),
    },
    ...(required.length ? { required } : {}),
  };
}
