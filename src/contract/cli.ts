import { readFileSync } from 'node:fs';
import { graphqlBreaking, openapiBreaking, unnamed } from './check.js';

// `npm run check:contract`: schema.graphql and openapi.json against the last
// release (contract/released/); exits 1 on a breaking change CHANGELOG.md's
// Unreleased section does not name. At a release, copy both into
// contract/released/ and open a new Unreleased section.

const read = (file: string) => readFileSync(file, 'utf8');
const changelog = read('CHANGELOG.md');
const graphql = await graphqlBreaking(read('contract/released/schema.graphql'), read('schema.graphql'));
const rest = openapiBreaking(JSON.parse(read('contract/released/openapi.json')), JSON.parse(read('openapi.json')));
const missing = unnamed([...graphql, ...rest], changelog);
process.stdout.write(
  `contract: ${graphql.length} breaking change(s) to the GraphQL schema, ${rest.length} to the OpenAPI document ` +
    `since the last release; ${missing.length} not named in CHANGELOG.md\n`,
);
for (const change of missing)
  process.stdout.write(`  not in CHANGELOG.md (Unreleased): ${change.path}: ${change.message}\n`);
process.exitCode = missing.length > 0 ? 1 : 0;
