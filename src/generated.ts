import 'reflect-metadata';
import { createSchema, schemaText } from './graphql/schema.js';
import { compileRoutes } from './rest/compile.js';
import { openApiDocument } from './rest/openapi.js';
import { ingressTable, routeTable } from './rest/routes/index.js';
import { VERSION } from './version.js';
import { WEBHOOKS_DOC_FILE, webhooksDoc } from './webhooks/docs.js';

// The generated, committed artifacts: schema.graphql, openapi.json and docs/webhooks.md.

export const SCHEMA_FILE = 'schema.graphql';
export const OPENAPI_FILE = 'openapi.json';

export async function generatedArtifacts(): Promise<Record<string, string>> {
  const schema = await createSchema();
  const routes = compileRoutes(schema, routeTable, { eager: true });
  return {
    [SCHEMA_FILE]: schemaText(schema),
    [OPENAPI_FILE]: `${JSON.stringify(openApiDocument(schema, routes, VERSION, ingressTable), null, 2)}\n`,
    [WEBHOOKS_DOC_FILE]: webhooksDoc(),
  };
}
