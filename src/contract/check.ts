import { CriticalityLevel, diff } from '@graphql-inspector/core';
import { buildSchema } from 'graphql';

// The breaking-change check of the contract (docs/architecture.md, Contract):
// the GraphQL schema by @graphql-inspector/core, the OpenAPI document by the
// comparison below (no maintained npm tool reads OpenAPI 3.1), each against
// the last released copy in contract/released/. A breaking change passes
// only when CHANGELOG.md's Unreleased section names it by its path.

export interface Breaking {
  /** Where: a GraphQL schema coordinate (`Query.webhooks.perPage`) or an OpenAPI place (`GET /api/webhooks 200.title`). */
  path: string;
  message: string;
}

/** The breaking changes from one GraphQL schema (SDL) to the next. */
export async function graphqlBreaking(released: string, current: string): Promise<Breaking[]> {
  const changes = await diff(buildSchema(released), buildSchema(current));
  return changes
    .filter((change) => change.criticality.level === CriticalityLevel.Breaking)
    .map((change) => ({ path: change.path ?? '', message: change.message }));
}

type Json = Record<string, any>;
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

/** A schema with its $ref (to components/schemas) followed, and the name it was reached by. */
function resolve(doc: Json, schema: Json | undefined): Json | undefined {
  const ref = schema?.$ref as string | undefined;
  return ref ? doc.components?.schemas?.[ref.replace('#/components/schemas/', '')] : schema;
}
const typesOf = (schema: Json | undefined): string[] => [schema?.type ?? []].flat().sort();
const enumOf = (schema: Json | undefined): unknown[] | undefined => schema?.enum ?? resolveItems(schema)?.enum;
const resolveItems = (schema: Json | undefined): Json | undefined => schema?.items;

/** What a client reading an answer relies on: each property of `before` is still there, of the same type. */
function answerBroken(
  docs: [Json, Json],
  before: Json | undefined,
  after: Json | undefined,
  where: string,
  out: Breaking[],
  seen: Set<string>,
): void {
  const [b, a] = [resolve(docs[0], before), resolve(docs[1], after)];
  if (!b || !a || seen.has(where)) return;
  seen.add(where);
  if (typesOf(b).length && typesOf(a).length && typesOf(b).join() !== typesOf(a).join()) {
    out.push({ path: where, message: `${where} changed type from ${typesOf(b).join('|')} to ${typesOf(a).join('|')}` });
    return;
  }
  for (const [name, property] of Object.entries<Json>(b.properties ?? {})) {
    const next = a.properties?.[name];
    if (!next) out.push({ path: `${where}.${name}`, message: `${where}.${name} was removed from an answer` });
    else answerBroken(docs, property, next, `${where}.${name}`, out, seen);
  }
  if (b.items && a.items) answerBroken(docs, b.items, a.items, `${where}[]`, out, seen);
}

/** What a client sending a request relies on: nothing it may send is refused, nothing it may leave out is required. */
function requestBroken(
  docs: [Json, Json],
  before: Json | undefined,
  after: Json | undefined,
  where: string,
  out: Breaking[],
  seen: Set<string>,
): void {
  const [b, a] = [resolve(docs[0], before), resolve(docs[1], after)];
  if (!b || !a || seen.has(where)) return;
  seen.add(where);
  const [was, is] = [enumOf(b), enumOf(a)];
  if (was && is) {
    for (const value of was)
      if (!is.includes(value))
        out.push({ path: where, message: `${where} no longer accepts ${JSON.stringify(value)}` });
  } else if (!was && is)
    out.push({ path: where, message: `${where} now accepts only ${is.map((v) => JSON.stringify(v)).join(', ')}` });
  for (const name of a.required ?? []) {
    if (!(b.required ?? []).includes(name))
      out.push({ path: `${where}.${name}`, message: `${where}.${name} is now required` });
  }
  for (const [name, property] of Object.entries<Json>(b.properties ?? {})) {
    if (a.properties?.[name]) requestBroken(docs, property, a.properties[name], `${where}.${name}`, out, seen);
  }
}

/** The breaking changes from one OpenAPI 3.1 document to the next: routes, answers and fields removed; requests narrowed. */
export function openapiBreaking(released: Json, current: Json): Breaking[] {
  const out: Breaking[] = [];
  const docs: [Json, Json] = [released, current];
  for (const [path, item] of Object.entries<Json>(released.paths ?? {})) {
    for (const method of METHODS.filter((m) => item[m])) {
      const where = `${method.toUpperCase()} ${path}`;
      const [before, after] = [item[method], current.paths?.[path]?.[method]];
      if (!after) {
        out.push({ path: where, message: `${where} was removed` });
        continue;
      }
      const key = (p: Json) => `${p.in}:${p.name}`;
      const params = new Map<string, Json>((after.parameters ?? []).map((p: Json) => [key(p), p]));
      for (const param of before.parameters ?? []) {
        const next = params.get(key(param));
        if (!next)
          out.push({
            path: `${where} ${param.name}`,
            message: `${where}: the ${param.in} parameter ${param.name} was removed`,
          });
        else requestBroken(docs, param.schema, next.schema, `${where} ${param.name}`, out, new Set());
      }
      for (const param of after.parameters ?? []) {
        const was = (before.parameters ?? []).find((p: Json) => key(p) === key(param));
        if (param.required && !was?.required)
          out.push({
            path: `${where} ${param.name}`,
            message: `${where}: the ${param.in} parameter ${param.name} is now required`,
          });
      }
      const body = (op: Json) => op.requestBody?.content?.['application/json']?.schema;
      requestBroken(docs, body(before), body(after), `${where} body`, out, new Set());
      for (const [status, response] of Object.entries<Json>(before.responses ?? {})) {
        if (!status.startsWith('2')) continue;
        const next = after.responses?.[status];
        if (!next) out.push({ path: `${where} ${status}`, message: `${where} no longer answers ${status}` });
        else
          answerBroken(
            docs,
            response.content?.['application/json']?.schema,
            next.content?.['application/json']?.schema,
            `${where} ${status}`,
            out,
            new Set(),
          );
      }
    }
  }
  return out;
}

/** The changelog's Unreleased section: the text a breaking change must be named in. */
export function unreleased(changelog: string): string {
  const start = changelog.search(/^## \[Unreleased\]/m);
  if (start < 0) return '';
  const rest = changelog.slice(start + 1);
  const end = rest.search(/^## \[/m);
  return end < 0 ? rest : rest.slice(0, end);
}

/** The breaking changes the changelog does not name (by their path, in backticks or not). */
export const unnamed = (changes: Breaking[], changelog: string): Breaking[] => {
  const named = unreleased(changelog);
  return changes.filter((change) => !named.includes(change.path));
};
