import {
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  typeFromAST,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { camelCase } from './params.js';
import type { Param, ParamType, ResolvedRoute, Route, RowParam } from './route.js';

// A row's parameters completed from its operation: each parameter fills a
// variable (or, nested, an input field), whose GraphQL type gives the REST
// type, the enum values, whether it is required (non-null without a default)
// and, for lists and input objects, the element and the fields. What the row
// states itself wins (an id's forms make it an `id`; REST may require what
// GraphQL leaves optional); a parameter that fills nothing stops the start.

const SCALARS: Record<string, ParamType> = {
  Int: 'integer',
  Float: 'number',
  Boolean: 'boolean',
  String: 'string',
  ID: 'string',
  JSONObject: 'json',
};

function complete(where: string, param: RowParam, graphqlType: GraphQLInputType, required: boolean): Param {
  const inner = isNonNullType(graphqlType) ? graphqlType.ofType : graphqlType;
  const own = {
    ...param,
    ...(param.required === undefined && required && !param.aliases?.length ? { required: true } : {}),
  };
  if (param.type === 'id' || param.idForms) return { ...own, type: 'id' } as Param;
  if (isListType(inner)) {
    return {
      ...own,
      type: param.type ?? 'array',
      items: complete(`${where}[]`, param.items ?? {}, inner.ofType, false),
    } as Param;
  }
  if (isInputObjectType(inner)) {
    if (param.type === 'json') return own as Param;
    const fields: Record<string, Param> = {};
    const graphqlFields = inner.getFields();
    for (const [name, field] of Object.entries(param.fields ?? {})) {
      const target = graphqlFields[field.variable ?? camelCase(name)];
      if (!target) throw new Error(`${where}.${name} fills no field of ${inner.name}`);
      fields[name] = complete(
        `${where}.${name}`,
        field,
        target.type,
        isNonNullType(target.type) && target.defaultValue === undefined,
      );
    }
    return { ...own, type: param.type ?? 'object', fields } as Param;
  }
  if (isEnumType(inner)) {
    const values = inner.getValues();
    const renamed = values.filter((v) => v.name !== v.value);
    return {
      ...own,
      type: param.type ?? 'string',
      enum: param.enum ?? [...(param.every ? [param.every] : []), ...values.map((v) => String(v.value))],
      ...(renamed.length > 0 ? { graphqlNames: Object.fromEntries(renamed.map((v) => [v.value, v.name])) } : {}),
    } as Param;
  }
  const type = param.type ?? SCALARS[inner.name];
  if (!type) throw new Error(`${where}: no REST type for ${inner.name}; the row must state one`);
  return { ...own, type } as Param;
}

export function resolveRoute(schema: GraphQLSchema, route: Route, operation: OperationDefinitionNode): ResolvedRoute {
  const variables = new Map((operation.variableDefinitions ?? []).map((v) => [v.variable.name.value, v]));
  const params: ResolvedRoute['params'] = {};
  for (const group of ['path', 'query', 'body'] as const) {
    const given = route.params[group];
    if (!given) continue;
    params[group] = {};
    for (const [name, param] of Object.entries(given)) {
      const where = `Route ${route.operationId}: ${group} parameter ${name}`;
      const variable = variables.get(param.variable ?? camelCase(name));
      if (!variable) throw new Error(`${where} fills no variable of the operation`);
      const type = typeFromAST(schema, variable.type) as GraphQLInputType | undefined;
      if (!type) throw new Error(`${where}: the variable's type is not in the schema`);
      params[group]![name] = complete(where, param, type, isNonNullType(type) && !variable.defaultValue);
    }
  }
  return { ...route, params };
}
