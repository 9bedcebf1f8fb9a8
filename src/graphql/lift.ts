import {
  Kind,
  parseType,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  valueFromASTUntyped,
  type ArgumentNode,
  type DocumentNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type ValueNode,
  type VariableDefinitionNode,
} from 'graphql';

// Route rows write inputs as literals around variables, e.g.
// `updateRole(id: $id, input: { title: $title })`. In GraphQL a field whose
// variable was not given is left out of the input object (it is absent, not
// null), which is how a REST PUT changes only what it names; graphql-jit
// would pass null instead. So before compiling, each such argument becomes
// one variable of the argument's own type, and its value is built per request
// from the row's variables, with absent ones left out, exactly as GraphQL
// would build it.

export interface Lifted {
  document: DocumentNode;
  /** The variables of the lifted document, from the row's variables; absent when nothing was lifted (the row's own serve). */
  variables?: (given: Record<string, unknown>) => Record<string, unknown>;
}

const hasVariable = (node: ValueNode): boolean =>
  node.kind === Kind.VARIABLE ||
  (node.kind === Kind.OBJECT && node.fields.some((f) => hasVariable(f.value))) ||
  (node.kind === Kind.LIST && node.values.some(hasVariable));

/** The argument's value in its external form: absent variables left out of objects, null inside lists. */
function build(node: ValueNode, given: Record<string, unknown>): unknown {
  if (node.kind === Kind.VARIABLE) return given[node.name.value] ?? null;
  if (node.kind === Kind.LIST) return node.values.map((value) => build(value, given));
  if (node.kind !== Kind.OBJECT) return valueFromASTUntyped(node);
  const out: Record<string, unknown> = {};
  for (const field of node.fields) {
    if (field.value.kind === Kind.VARIABLE && given[field.value.name.value] === undefined) continue;
    out[field.name.value] = build(field.value, given);
  }
  return out;
}

export function liftInputLiterals(schema: GraphQLSchema, document: DocumentNode): Lifted {
  const typeInfo = new TypeInfo(schema);
  const lifted: Array<{ name: string; value: ValueNode }> = [];
  const definitions: VariableDefinitionNode[] = [];
  const rewritten = visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Argument(node: ArgumentNode) {
        if (node.value.kind === Kind.VARIABLE || !hasVariable(node.value)) return undefined;
        const type = typeInfo.getArgument()?.type;
        if (!type) return undefined;
        const name = `lifted_${lifted.length}_${node.name.value}`;
        lifted.push({ name, value: node.value });
        definitions.push({
          kind: Kind.VARIABLE_DEFINITION,
          variable: { kind: Kind.VARIABLE, name: { kind: Kind.NAME, value: name } },
          type: parseType(String(type)),
        });
        return { ...node, value: { kind: Kind.VARIABLE, name: { kind: Kind.NAME, value: name } } };
      },
    }),
  );
  if (lifted.length === 0) return { document };
  const withDefinitions: DocumentNode = {
    ...rewritten,
    definitions: rewritten.definitions.map((definition) =>
      definition.kind === Kind.OPERATION_DEFINITION
        ? {
            ...definition,
            variableDefinitions: [
              ...((definition as OperationDefinitionNode).variableDefinitions ?? []),
              ...definitions,
            ],
          }
        : definition,
    ),
  };
  // A variable not given takes its definition's default, inside a literal as anywhere.
  const defaults: Record<string, unknown> = {};
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    for (const variable of definition.variableDefinitions ?? []) {
      if (variable.defaultValue) defaults[variable.variable.name.value] = valueFromASTUntyped(variable.defaultValue);
    }
  }
  const withDefaults =
    Object.keys(defaults).length === 0
      ? (given: Record<string, unknown>) => given
      : (given: Record<string, unknown>) => {
          const out = { ...given };
          for (const [name, value] of Object.entries(defaults)) if (out[name] === undefined) out[name] = value;
          return out;
        };
  return {
    document: withDefinitions,
    variables: (given) => {
      const out = { ...given };
      const values = withDefaults(given);
      for (const { name, value } of lifted) out[name] = build(value, values);
      return out;
    },
  };
}
