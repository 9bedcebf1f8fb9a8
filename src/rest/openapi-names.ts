// Named schemas for the OpenAPI document (src/rest/openapi.ts): every object
// derived from a GraphQL type becomes a component named after that type
// (Role, PhoneNumber, Pagination, RolePage, ...), referenced wherever it
// appears, so a generated client has a type per record, envelope and page.
// A type that REST rows ask for in several shapes (other fields, other
// aliases) gets one component per shape: the most used one takes the type's
// name, the others the name and a number, in the order the document meets them.

type Schema = Record<string, unknown>;

/** The GraphQL type an object schema was made from; stays on its component. */
export const GRAPHQL_TYPE = 'x-graphql-type';

const isObject = (value: unknown): value is Schema => !!value && typeof value === 'object' && !Array.isArray(value);

/** The schema as a component holds it: not nullable, without the description of the place it was met. */
function bare(schema: Schema): Schema {
  const { description: _description, ...rest } = schema;
  return { ...rest, type: 'object' };
}

const nullable = (schema: Schema) => Array.isArray(schema.type) && schema.type.includes('null');

/**
 * Moves every schema made from a GraphQL object type out of `paths` into
 * `schemas` (which must not hold those names yet), children before parents.
 * Returns the components made.
 */
export function nameSchemas(paths: Schema, taken: ReadonlySet<string>): Record<string, Schema> {
  // First the shapes each type is met in and how often (a shape is the whole inline schema, children included).
  const shapes = new Map<string, Map<string, number>>();
  const order: string[] = [];
  const visit = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(visit);
    if (!isObject(value)) return value;
    const walked: Schema = Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, visit(inner)]));
    const type = walked[GRAPHQL_TYPE];
    if (typeof type === 'string') {
      const key = JSON.stringify(bare(walked));
      const byShape = shapes.get(type) ?? shapes.set(type, new Map()).get(type)!;
      if (!byShape.has(key)) order.push(`${type}\u0000${key}`);
      byShape.set(key, (byShape.get(key) ?? 0) + 1);
    }
    return walked;
  };
  visit(paths);

  // Names: the most used shape of a type takes its name, the others a number after it.
  const names = new Map<string, string>();
  const used = new Set(taken);
  const claim = (name: string) => {
    let candidate = name;
    for (let n = 2; used.has(candidate); n++) candidate = `${name}${n}`;
    used.add(candidate);
    return candidate;
  };
  for (const [type, byShape] of shapes) {
    const [first] = [...byShape.entries()].sort(
      (a, b) => b[1] - a[1] || order.indexOf(`${type}\u0000${a[0]}`) - order.indexOf(`${type}\u0000${b[0]}`),
    );
    names.set(`${type}\u0000${first[0]}`, claim(type));
  }
  for (const entry of order) if (!names.has(entry)) names.set(entry, claim(entry.split('\u0000')[0]));

  // Then every such schema is replaced by a reference (children first), and its shape kept once as the component.
  const components: Record<string, Schema> = {};
  const replace = (value: unknown): { inline: unknown; out: unknown } => {
    if (Array.isArray(value)) {
      const items = value.map(replace);
      return { inline: items.map((i) => i.inline), out: items.map((i) => i.out) };
    }
    if (!isObject(value)) return { inline: value, out: value };
    const entries = Object.entries(value).map(([key, inner]) => [key, replace(inner)] as const);
    const inline: Schema = Object.fromEntries(entries.map(([key, r]) => [key, r.inline]));
    const out: Schema = Object.fromEntries(entries.map(([key, r]) => [key, r.out]));
    const type = inline[GRAPHQL_TYPE];
    if (typeof type !== 'string') return { inline, out };
    const name = names.get(`${type}\u0000${JSON.stringify(bare(inline))}`)!;
    components[name] ??= bare(out);
    const ref = { $ref: `#/components/schemas/${name}` };
    const description = typeof out.description === 'string' ? { description: out.description } : {};
    return {
      inline,
      out: nullable(out) ? { anyOf: [ref, { type: 'null' }], ...description } : { ...ref, ...description },
    };
  };
  const replaced = replace(paths).out as Schema;
  for (const key of Object.keys(paths)) paths[key] = replaced[key];
  return Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b)));
}
