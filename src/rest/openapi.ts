import {
  getNamedType,
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
import type { CompiledRoute } from './compile.js';
import type { Param } from './route.js';

// The OpenAPI 3.1 document, generated from the same route table. Response
// schemas are derived from each row's GraphQL selection, so they cannot
// drift from what the handler returns.

type Schema = Record<string, unknown>;

const SCALARS: Record<string, Schema> = {
  Int: { type: 'integer' },
  Float: { type: 'number' },
  String: { type: 'string' },
  Boolean: { type: 'boolean' },
  ID: { type: 'string' },
  DateTimeISO: { type: 'string', format: 'date-time' },
  JSONObject: { type: 'object' },
};

function outputSchema(type: GraphQLOutputType, selection: SelectionSetNode | undefined): Schema {
  if (isNonNullType(type)) return outputSchema(type.ofType, selection);
  const nullable = (schema: Schema): Schema => ({ ...schema, type: [schema.type, 'null'] });
  return nullable(nonNullSchema(type, selection));
}

function nonNullSchema(type: GraphQLOutputType, selection: SelectionSetNode | undefined): Schema {
  if (isNonNullType(type)) return nonNullSchema(type.ofType, selection);
  if (isListType(type)) {
    const inner = type.ofType as GraphQLOutputType;
    return { type: 'array', items: isNonNullType(inner) ? nonNullSchema(inner.ofType, selection) : outputSchema(inner, selection) };
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
      if (field.description) properties[key].description = field.description;
    }
    return { type: 'object', properties, required: Object.keys(properties) };
  }
  return { type: 'object' };
}

function paramSchema(param: Param): Schema {
  const base: Schema = param.description ? { description: param.description } : {};
  switch (param.type) {
    case 'id':
      return { ...base, type: param.nullable ? ['string', 'null'] : 'string' };
    case 'array':
      return { ...base, type: 'array', items: paramSchema(param.items!) };
    case 'object':
      return { ...base, ...objectSchema(param.fields ?? {}) };
    case 'json':
      return { ...base, type: 'object' };
    default:
      return { ...base, type: param.type, ...(param.enum ? { enum: [...param.enum] } : {}) };
  }
}

function objectSchema(fields: Record<string, Param>): Schema {
  const required = Object.entries(fields).filter(([, p]) => p.required && !p.aliases?.length).map(([n]) => n);
  const aliases = Object.entries(fields).flatMap(([name, p]) =>
    (p.aliases ?? []).map((alias) => [alias, { ...paramSchema(p), description: `Same as ${name}` }] as const));
  return {
    type: 'object',
    properties: { ...Object.fromEntries(Object.entries(fields).map(([name, p]) => [name, paramSchema(p)])), ...Object.fromEntries(aliases) },
    ...(required.length ? { required } : {}),
  };
}

const errorRef = { content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };

export function openApiDocument(schema: GraphQLSchema, routes: CompiledRoute[], version: string): Schema {
  const paths: Record<string, Record<string, Schema>> = {};
  const seen = new Map<string, number>();
  for (const compiled of routes) {
    const { route } = compiled;
    const operation = compiled.document.definitions[0] as OperationDefinitionNode;
    const root = operation.operation === 'query' ? schema.getQueryType()! : schema.getMutationType()!;
    const fieldNode = operation.selectionSet.selections.find((s) => s.kind === 'Field' && s.name.value === route.response.field);
    const value = fieldNode?.kind === 'Field' ? outputSchema(root.getFields()[route.response.field].type, fieldNode.selectionSet) : {};
    const success: Schema = route.response.shape === 'plain'
      ? value
      : {
          type: 'object',
          properties: {
            success: { type: 'boolean', const: true },
            ...(route.response.message ? { message: { type: 'string', const: route.response.message } } : {}),
            ...(route.response.data ? { data: value } : {}),
          },
          required: ['success', ...(route.response.message ? ['message'] : []), ...(route.response.data ? ['data'] : [])],
        };
    const count = seen.get(route.operationId) ?? 0;
    seen.set(route.operationId, count + 1);
    const isAlias = count > 0;
    const parameters = [
      ...Object.entries(route.params.path ?? {}).map(([name, p]) => ({ name, in: 'path', required: true, schema: paramSchema(p) })),
      ...Object.entries(route.params.query ?? {}).map(([name, p]) => ({ name, in: 'query', required: !!p.required, schema: paramSchema(p) })),
    ];
    const responses: Record<string, Schema> = {
      [String(route.status ?? 200)]: { description: 'Success', content: { 'application/json': { schema: success } } },
      '422': { description: 'Validation failed', ...errorRef },
    };
    if (route.auth !== false) responses['401'] = { description: 'Missing, invalid, expired or revoked token', ...errorRef };
    if (compiled.permissions.length) responses['403'] = { description: `Requires ${compiled.permissions.join(', ')}`, ...errorRef };
    if (route.params.path) responses['404'] = { description: 'Unknown id, or an id of another company', ...errorRef };
    (paths[compiled.path] ??= {})[compiled.method.toLowerCase()] = {
      operationId: isAlias ? `${route.operationId}${count + 1}` : route.operationId,
      tags: [route.tag],
      summary: isAlias ? `${route.summary} (same endpoint)` : route.summary,
      ...(route.description ? { description: route.description } : {}),
      ...(route.auth === false ? { security: [] } : {}),
      ...(compiled.permissions.length ? { 'x-permissions': compiled.permissions } : {}),
      'x-graphql-operation': route.document.replace(/\s+/g, ' ').trim(),
      ...(parameters.length ? { parameters } : {}),
      ...(route.params.body ? { requestBody: { required: true, content: { 'application/json': { schema: objectSchema(route.params.body) } } } } : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Switchboard API',
      version,
      description: 'REST interface of Switchboard. Every route runs a GraphQL operation of the same service (see x-graphql-operation).',
    },
    servers: [{ url: '/' }],
    security: [{ bearerAuth: [] }],
    paths,
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      schemas: {
        Error: {
          type: 'object',
          properties: {
            success: { type: 'boolean', const: false },
            message: { type: 'string' },
            errors: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } }, description: 'Per field, for validation failures' },
            request_id: { type: 'string', description: 'For server errors' },
          },
          required: ['success', 'message'],
        },
      },
    },
  };
}
