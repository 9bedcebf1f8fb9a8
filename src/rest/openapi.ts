import { CAMPAIGN_LIMITS } from '../kernel/bounds.js';
import {
  GraphQLNonNull,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { completeHeaders, HEADERS, IDEMPOTENCY_KEY, IDEMPOTENT_REPLAYED, refusalHeaders } from './openapi-headers.js';
import { UNAVAILABLE } from './openapi-headers.js';
import type { CompiledRoute } from './compile.js';
import { TAGS } from './tags.js';
import { GRAPHQL_TYPE, nameSchemas } from './openapi-names.js';
import { bodyExample, responseExample } from './examples.js';
import { INGRESS_BOUNDS, objectSchema, paramSchema, type Schema } from './openapi-params.js';
import type { IngressRoute, Param } from './route.js';

// The OpenAPI 3.1 document, generated from the same route table. Response
// schemas are derived from each row's GraphQL selection, so they cannot
// drift from what the handler returns.

const SCALARS: Record<string, Schema> = {
  // GraphQL's Int is a signed 32-bit integer: generators for Java, Go and C# need not guess.
  Int: { type: 'integer', format: 'int32' },
  Float: { type: 'number' },
  String: { type: 'string' },
  Boolean: { type: 'boolean' },
  ID: { type: 'string' },
  DateTimeISO: { type: 'string', format: 'date-time' },
  // An open object: any keys, any values (generated clients get a map, not an empty record).
  JSONObject: { type: 'object', additionalProperties: true },
};

/** GraphQL's nullability, kept: a non-null field is never null in the document either. */
function outputSchema(type: GraphQLOutputType, selection: SelectionSetNode | undefined): Schema {
  if (isNonNullType(type)) return nonNullSchema(type.ofType, selection);
  const schema = nonNullSchema(type, selection);
  return {
    ...schema,
    type: [schema.type, 'null'],
    ...(Array.isArray(schema.enum) ? { enum: [...schema.enum, null] } : {}),
  };
}

function nonNullSchema(type: GraphQLOutputType, selection: SelectionSetNode | undefined): Schema {
  if (isNonNullType(type)) return nonNullSchema(type.ofType, selection);
  if (isListType(type)) {
    const inner = type.ofType as GraphQLOutputType;
    return {
      type: 'array',
      items: isNonNullType(inner) ? nonNullSchema(inner.ofType, selection) : outputSchema(inner, selection),
    };
  }
  if (isScalarType(type)) return { ...(SCALARS[type.name] ?? { type: 'string' }) };
  if (isEnumType(type)) return { type: 'string', enum: type.getValues().map((v) => v.value) };
  if (isObjectType(type) && selection) {
    const fields = type.getFields();
    const properties: Record<string, Schema> = {};
    for (const node of selection.selections) {
      if (node.kind !== 'Field' || node.name.value === '__typename') continue;
      const field = fields[node.name.value];
      const key = node.alias?.value ?? node.name.value;
      properties[key] = outputSchema(field.type, node.selectionSet);
      // What GraphQL's types cannot say (a closed set of integers, the values of free keys) the field states as
      // JSON Schema in its extensions (`@Extensions({ jsonSchema })`).
      const stated = field.extensions?.jsonSchema as Schema | undefined;
      if (stated) properties[key] = withStated(properties[key], stated, isNonNullType(field.type));
      if (field.description) properties[key].description = field.description;
    }
    return { type: 'object', [GRAPHQL_TYPE]: type.name, properties, required: Object.keys(properties) };
  }
  return { type: 'object' };
}

/** A field's schema with what it states of itself (its type and nullability stay GraphQL's). */
function withStated(schema: Schema, stated: Schema, nonNull: boolean): Schema {
  if ('$ref' in stated) return nonNull ? { ...stated } : { oneOf: [{ ...stated }, { type: 'null' }] };
  const { type: _type, ...keywords } = stated;
  const values = keywords.enum as unknown[] | undefined;
  return { ...schema, ...keywords, ...(values && !nonNull ? { enum: [...values, null] } : {}) };
}

/** A row's `spread`: the named field's properties in its place, beside the others. */
function spreadSchema(value: Schema, spread: string | undefined): Schema {
  if (!spread) return value;
  const properties = value.properties as Record<string, Schema>;
  const { [spread]: inner, ...rest } = properties;
  const merged = { ...(inner.properties as Record<string, Schema>), ...rest };
  return { type: 'object', properties: merged, required: Object.keys(merged) };
}

const errorRef = { content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };

/** A write of a signed-in caller takes an Idempotency-Key (db/idempotency.ts). */
const takesIdempotencyKey = (compiled: CompiledRoute) => compiled.method !== 'GET' && compiled.route.auth !== false;

/** Each status a route can answer, with what it means there. */
function errorResponses(compiled: CompiledRoute): Record<string, Schema> {
  const { route } = compiled;
  const out: Record<string, Schema> = {
    '400': { description: 'The body is not JSON or is malformed', ...errorRef },
  };
  if (route.auth !== false) {
    out['401'] = {
      description: 'Missing, invalid, expired or revoked token (it spends nothing)',
      headers: { 'WWW-Authenticate': { description: 'Bearer', schema: { type: 'string' } } },
      ...errorRef,
    };
  }
  if (compiled.permissions.length)
    out['403'] = { description: `Requires ${compiled.permissions.join(', ')}`, ...errorRef };
  else if (route.answers?.includes(403))
    out['403'] = { description: 'The company named is not one the signed-in user may see', ...errorRef };
  if (route.params.path || route.auth === false || route.answers?.includes(404)) {
    out['404'] = {
      description:
        route.auth === false
          ? 'Invalid credentials'
          : 'Unknown id, an id of another company, or an id in a form this route does not accept',
      ...errorRef,
    };
  }
  const conflicts = [
    ...(route.answers?.includes(409) ? ['the change conflicts with the current state'] : []),
    ...(takesIdempotencyKey(compiled) ? ['a request with the same Idempotency-Key is still in progress'] : []),
  ];
  if (conflicts.length)
    out['409'] = {
      description: `${conflicts.join('; or ')[0].toUpperCase()}${conflicts.join('; or ').slice(1)}`,
      ...errorRef,
    };
  if (route.answers?.includes(410))
    out['410'] = { description: 'The cursor is older than the event retention: start again without it', ...errorRef };
  out['413'] = { description: 'The body is larger than 1 MiB', ...errorRef };
  out['422'] = {
    description: takesIdempotencyKey(compiled)
      ? 'Validation failed (`errors` names each field), or the Idempotency-Key was used with another request'
      : 'Validation failed: `errors` names each field',
    ...errorRef,
  };
  if (route.answers?.includes(429) || route.auth !== false) {
    const spent = "a budget of the caller's rate limits is spent (RateLimit-Policy says which)";
    const reasons = [
      ...(route.answers?.includes(429) ? ['too many attempts'] : []),
      ...(route.auth !== false ? [spent] : []),
    ].join(', or ');
    const description = `${reasons[0].toUpperCase()}${reasons.slice(1)}; try again after Retry-After seconds`;
    out['429'] = { description, headers: refusalHeaders(route.auth !== false), ...errorRef };
  }
  out['500'] = { description: 'Server error: `request_id` identifies it in the logs', ...errorRef };
  if (route.answers?.includes(502))
    out['502'] = { description: 'The telephony provider failed or did not answer', ...errorRef };
  out['503'] = UNAVAILABLE;
  return out;
}

/** The row's description, and the permissions its field's @Authorized names (never written by hand in a row). */
function operationDescription(description: string | undefined, permissions: string[]): { description?: string } {
  const text = [description, permissions.length ? `Requires ${permissions.join(' and ')}.` : '']
    .filter(Boolean)
    .join(' ');
  return text ? { description: text } : {};
}

/** A provider callback row: a form body, a signature header, 204 when applied (200 and its answer for one that answers). */
function ingressOperation(route: IngressRoute): Schema {
  return {
    operationId: route.operationId,
    tags: [route.tag],
    summary: route.summary,
    description: route.description,
    security: [{ telcoSignature: [] }],
    requestBody: {
      required: true,
      content: { 'application/x-www-form-urlencoded': { schema: objectSchema(route.params, INGRESS_BOUNDS) } },
    },
    responses: {
      ...(route.answer
        ? {
            '200': {
              description: 'The instruction for the call',
              content: {
                [route.answer.contentType]: {
                  schema: route.answer.schema ?? { type: 'string', maxLength: 65_536 },
                  example: route.answer.example,
                },
              },
            },
          }
        : { '204': { description: 'Applied (or already applied: callbacks are idempotent)' } }),
      '400': { description: 'The body is not form-encoded, or a parameter is repeated', ...errorRef },
      '403': { description: 'The signature is missing or wrong, or the account is unknown', ...errorRef },
      '413': { description: 'The body is larger than 64 KiB', ...errorRef },
      '422': { description: 'A parameter is malformed: `errors` names it', ...errorRef },
      '500': { description: 'Server error: `request_id` identifies it in the logs', ...errorRef },
      '503': UNAVAILABLE,
    },
  };
}

/** What the document carries beside the routes: the webhook deliveries (an OpenAPI 3.1 `webhooks` section) and the schemas they refer to. */
export interface DocumentExtras {
  webhooks?: Record<string, Schema>;
  schemas?: Record<string, Schema>;
}

export function openApiDocument(
  schema: GraphQLSchema,
  routes: CompiledRoute[],
  version: string,
  ingress: IngressRoute[] = [],
  extras: DocumentExtras = {},
): Schema {
  const paths: Record<string, Record<string, Schema>> = {};
  for (const route of ingress) (paths[route.path] ??= {})[route.method.toLowerCase()] = ingressOperation(route);
  const seen = new Map<string, number>();
  for (const compiled of routes) {
    const { route } = compiled;
    const operation = compiled.document.definitions[0] as OperationDefinitionNode;
    const root = operation.operation === 'query' ? schema.getQueryType()! : schema.getMutationType()!;
    const fieldNode = operation.selectionSet.selections.find(
      (s) => s.kind === 'Field' && s.name.value === route.response.field,
    );
    const field = root.getFields()[route.response.field];
    // A row answers 200 only with a value: a root field that is null has failed, and the answer is its error.
    const rootType =
      route.response.shape === 'plain' && !isNonNullType(field.type) ? new GraphQLNonNull(field.type) : field.type;
    const value = spreadSchema(
      fieldNode?.kind === 'Field' ? outputSchema(rootType, fieldNode.selectionSet) : {},
      route.response.spread,
    );
    const success: Schema =
      route.response.shape === 'plain'
        ? value
        : {
            type: 'object',
            properties: {
              success: { type: 'boolean', const: true },
              ...(route.response.message ? { message: { type: 'string', const: route.response.message } } : {}),
              ...(route.response.data ? { data: value } : {}),
            },
            required: [
              'success',
              ...(route.response.message ? ['message'] : []),
              ...(route.response.data ? ['data'] : []),
            ],
          };
    const count = seen.get(route.operationId) ?? 0;
    seen.set(route.operationId, count + 1);
    const isAlias = count > 0;
    // Descriptions on the parameter itself, where generators look for them.
    const parameter = (name: string, where: 'path' | 'query', p: Param) => ({
      name,
      in: where,
      required: where === 'path' || !!p.required,
      ...(p.description ? { description: p.description } : {}),
      schema: paramSchema(p, false),
    });
    const parameters = [
      ...Object.entries(route.params.path ?? {}).map(([name, p]) => parameter(name, 'path', p)),
      ...Object.entries(route.params.query ?? {}).map(([name, p]) => parameter(name, 'query', p)),
    ];
    if (takesIdempotencyKey(compiled)) parameters.push({ $ref: '#/components/parameters/IdempotencyKey' } as never);
    const responses: Record<string, Schema> = {
      [String(route.status ?? 200)]: {
        description: 'Success',
        ...(takesIdempotencyKey(compiled) ? { headers: IDEMPOTENT_REPLAYED } : {}),
        content: { 'application/json': { schema: success } },
      },
      ...errorResponses(compiled),
    };
    completeHeaders(responses, route.auth !== false);
    (paths[compiled.path] ??= {})[compiled.method.toLowerCase()] = {
      operationId: isAlias ? `${route.operationId}${count + 1}` : route.operationId,
      tags: [route.tag],
      summary: isAlias ? `${route.summary} (same endpoint)` : route.summary,
      // The spec's second path or method for the same operation: it keeps working, and is deprecated in favour
      // of the first, so a generated client has one method per operation.
      ...(isAlias ? { deprecated: true, 'x-alias-of': route.operationId } : {}),
      ...operationDescription(
        isAlias
          ? `The same operation as \`${route.methods[0]} ${route.paths[0]}\` (${route.operationId}), which clients should use. ${route.description ?? ''}`
          : route.description,
        compiled.permissions,
      ),
      ...(route.auth === false ? { security: [] } : {}),
      ...(compiled.permissions.length ? { 'x-permissions': compiled.permissions } : {}),
      'x-graphql-operation': route.document.replace(/\s+/g, ' ').trim(),
      ...(parameters.length ? { parameters } : {}),
      ...(route.params.body
        ? {
            requestBody: {
              required: true,
              content:
                route.bodyType === 'csv'
                  ? {
                      'text/csv': {
                        schema: { type: 'string', maxLength: CAMPAIGN_LIMITS.csvBytes },
                        example: route.params.body.csv.example,
                      },
                    }
                  : {
                      'application/json': {
                        schema: objectSchema(route.params.body),
                        example: bodyExample(route.params.body),
                      },
                    },
            },
          }
        : {}),
      responses,
    };
  }
  // Every object a GraphQL type makes becomes a named component (Role, RolePage, Pagination, ...).
  const named = nameSchemas(paths, new Set(['Error', ...Object.keys(extras.schemas ?? {})]));
  // Each success answer gets an example made from its schema.
  for (const operation of Object.values(paths).flatMap((methods) => Object.values(methods))) {
    for (const [status, response] of Object.entries(operation.responses as Record<string, Schema>)) {
      const json = (response.content as Record<string, Schema> | undefined)?.['application/json'];
      if (status.startsWith('2') && json && !('example' in json))
        json.example = responseExample(json.schema, { ...extras.schemas, ...named });
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Switchboard API',
      version,
      description:
        'REST interface of Switchboard. Every route runs a GraphQL operation of the same service (see x-graphql-operation). ' +
        'A known path called with a method it does not have answers 405 with an Allow header; an unknown path 404.',
      contact: { name: 'Switchboard API support' },
      license: { name: 'Proprietary', identifier: 'LicenseRef-Switchboard' },
    },
    servers: [
      {
        url: '/',
        description: 'The service that serves this document: production, staging or local alike',
        'x-internal': false,
      },
    ],
    security: [{ bearerAuth: [] }],
    tags: [
      ...new Set([
        ...routes.map((r) => r.route.tag),
        ...ingress.map((r) => r.tag),
        ...(extras.webhooks ? ['Webhooks'] : []),
      ]),
    ].map((name) => ({ name, description: TAGS[name] ?? `${name} routes` })),
    paths,
    ...(extras.webhooks ? { webhooks: extras.webhooks } : {}),
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description:
            'The token POST /api/login answers. Verified as RFC8725 asks: HS256 only (the algorithm is never ' +
            'read from the token), issuer, audience and expiry checked, and revocable (POST /api/logout).',
        },
        telcoSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Telco-Signature',
          description:
            "The provider's callbacks: base64 HMAC-SHA1 of the URL and the sorted parameters, keyed by the account's auth token",
        },
      },
      parameters: { IdempotencyKey: IDEMPOTENCY_KEY },
      headers: HEADERS,
      schemas: {
        Error: {
          type: 'object',
          properties: {
            success: { type: 'boolean', const: false },
            message: { type: 'string' },
            errors: {
              type: 'object',
              additionalProperties: { type: 'array', items: { type: 'string' } },
              description: 'Per field, for validation failures',
            },
            request_id: { type: 'string', description: 'For server errors' },
          },
          required: ['success', 'message'],
        },
        ...extras.schemas,
        ...named,
      },
    },
  };
}
