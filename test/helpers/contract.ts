import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { readFileSync } from 'node:fs';

// The contract test: every REST response a test receives through TestApp is
// validated against the committed OpenAPI document (which generated.test
// keeps equal to what the service serves) with ajv, JSON Schema 2020-12.
// A status the document does not declare for the route fails too, so the
// document cannot drift from behaviour.

type Doc = {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: { 'application/json'?: { schema: unknown } } }> }>
  >;
  webhooks: Record<
    string,
    {
      post: {
        parameters: Array<{ name: string; schema: unknown }>;
        requestBody: { content: { 'application/json': { schema: unknown } } };
      };
    }
  >;
  components: { schemas: Record<string, unknown> };
};

const doc = JSON.parse(readFileSync(new URL('../../../openapi.json', import.meta.url), 'utf8')) as Doc;
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));

/**
 * `$ref`s into components, replaced by what they name; a component that
 * refers to itself (a filter node) is kept once under `$defs` and referred to there.
 */
function inline(schema: unknown): unknown {
  const defs: Record<string, unknown> = {};
  const body = walk(schema, new Set(), defs);
  return Object.keys(defs).length > 0 ? { ...(body as object), $defs: defs } : body;
}

function walk(schema: unknown, within: ReadonlySet<string>, defs: Record<string, unknown>): unknown {
  if (Array.isArray(schema)) return schema.map((item) => walk(item, within, defs));
  if (!schema || typeof schema !== 'object') return schema;
  const ref = (schema as { $ref?: string }).$ref;
  if (ref?.startsWith('#/components/schemas/')) {
    const name = ref.slice('#/components/schemas/'.length);
    if (within.has(name)) return { $ref: `#/$defs/${name}` };
    const body = walk(doc.components.schemas[name], new Set([...within, name]), defs);
    if (JSON.stringify(body).includes(`"#/$defs/${name}"`)) {
      defs[name] = body;
      return { $ref: `#/$defs/${name}` };
    }
    return body;
  }
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, walk(value, within, defs)]));
}

// Literal segments win over parameters, as in the router.
const templates = Object.keys(doc.paths)
  .map((template) => ({
    template,
    pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
    params: (template.match(/\{/g) ?? []).length,
  }))
  .sort((a, b) => a.params - b.params);

const compiled = new Map<string, ValidateFunction>();
const bySchema = new Map<string, ValidateFunction>();

/** What is wrong with this response by the document (undefined: nothing). */
export function contractViolation(
  method: string,
  url: string,
  status: number,
  body: unknown,
  text: string,
): string | undefined {
  const path = url.split('?')[0];
  if (!path.startsWith('/api/') || path.startsWith('/api/docs') || path === '/api/openapi.json') return undefined;
  const match = templates.find((t) => t.pattern.test(path) && doc.paths[t.template][method.toLowerCase()]);
  // An unknown path (404) and a known path with a method it lacks (405) are described once, in the document's info.
  if (!match)
    return status === 404 || status === 405
      ? undefined
      : `${method} ${path}: no operation in the document, yet it answered ${status}`;
  const operation = doc.paths[match.template][method.toLowerCase()];
  const declared = operation.responses[String(status)];
  if (!declared)
    return `${method} ${match.template} answered ${status}, which the document does not declare (declared: ${Object.keys(operation.responses).join(', ')})`;
  const schema = declared.content?.['application/json']?.schema;
  if (!schema) return undefined;
  if (typeof body !== 'object' || body === null)
    return `${method} ${match.template} ${status}: the body is not JSON: ${text.slice(0, 200)}`;
  const key = `${method} ${match.template} ${status}`;
  let validate = compiled.get(key);
  if (!validate) {
    // Routes share most of their answers' schemas (every 401, 422, page of roles): each is compiled once.
    const inlined = inline(schema) as object;
    const text = JSON.stringify(inlined);
    validate = bySchema.get(text) ?? bySchema.set(text, ajv.compile(inlined)).get(text)!;
    compiled.set(key, validate);
  }
  if (validate(body)) return undefined;
  return `${key}: ${ajv.errorsText(validate.errors, { separator: '; ' })} in ${text.slice(0, 300)}`;
}

const deliveries = new Map<string, { body: ValidateFunction; headers: Array<[string, ValidateFunction]> }>();

/**
 * What is wrong with a webhook delivery by the document's `webhooks` entry
 * for its event (x-webhook-event): its headers and its body (undefined:
 * nothing). The test receiver asks this of every delivery it gets.
 */
export function deliveryViolation(
  headers: Record<string, string | string[] | undefined>,
  text: string,
): string | undefined {
  const event = String(headers['x-webhook-event']);
  const entry = doc.webhooks[event]?.post;
  if (!entry) return `a delivery of ${event}, which the document has no webhook for`;
  let validators = deliveries.get(event);
  if (!validators) {
    validators = {
      body: ajv.compile(inline(entry.requestBody.content['application/json'].schema) as object),
      headers: entry.parameters.map((p) => [p.name, ajv.compile(p.schema as object)]),
    };
    deliveries.set(event, validators);
  }
  for (const [name, validate] of validators.headers) {
    if (!validate(headers[name]))
      return `${event}: header ${name} = ${JSON.stringify(headers[name])}: ${ajv.errorsText(validate.errors)}`;
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `${event}: the body is not JSON: ${text.slice(0, 200)}`;
  }
  return validators.body(body)
    ? undefined
    : `${event}: ${ajv.errorsText(validators.body.errors, { separator: '; ' })} in ${text.slice(0, 300)}`;
}

// The live channel's contract: every live event a test checks is validated
// against the committed AsyncAPI document's message for its type.
type AsyncDoc = { channels: { events: { messages: Record<string, { name: string; payload: unknown }> } } };
const asyncDoc = JSON.parse(readFileSync(new URL('../../../asyncapi.json', import.meta.url), 'utf8')) as AsyncDoc;
const liveValidators = new Map<string, ValidateFunction>();

/** Why a live event (`{ id type occurredAt data contact }` of the events subscription) does not fit asyncapi.json, or undefined. */
export function liveEventViolation(event: { type: string; [field: string]: unknown }): string | undefined {
  const text = JSON.stringify(event).slice(0, 300);
  const message = Object.values(asyncDoc.channels.events.messages).find(
    (m) => m.name.replace(/[^_0-9A-Za-z]/g, '_') === event.type,
  );
  if (!message) return `a live event of ${event.type}, which asyncapi.json has no message for`;
  let validate = liveValidators.get(event.type);
  if (!validate) liveValidators.set(event.type, (validate = ajv.compile(message.payload as object)));
  const type = event.type;
  return validate(event) ? undefined : `${type}: ${ajv.errorsText(validate.errors, { separator: '; ' })} in ${text}`;
}
