import { writeFileSync } from 'node:fs';
import { generatedArtifacts } from './platform/generated.js';

// `npm run generate`: rewrites schema.graphql, openapi.json and docs/webhooks.md from the code.

for (const [file, text] of Object.entries(await generatedArtifacts())) {
  writeFileSync(file, text);
  process.stdout.write(`wrote ${file}\n`);
}
