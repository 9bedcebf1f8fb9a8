import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import { buildSchema } from 'type-graphql';
import { authChecker } from '../resolvers/auth-checker.js';
import { resolvers } from '../resolvers/index.js';

export async function createSchema(): Promise<GraphQLSchema> {
  return buildSchema({
    resolvers,
    authChecker,
    authMode: 'error',
    validate: false,
  });
}

/** The text committed as schema.graphql. */
export const schemaText = (schema: GraphQLSchema) => `${printSchema(lexicographicSortSchema(schema))}\n`;
