import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { serverAudits } from 'graphql-http';
import { startTestApp, type TestApp } from './helpers/app.js';

// The GraphQL over HTTP specification, checked by the graphql-http package's
// own audits against /graphql: every MUST passes (SHOULD and MAY are reported).

let app: TestApp;
before(async () => {
  app = await startTestApp();
});
after(async () => {
  await app?.close();
});

describe('GraphQL over HTTP audits', () => {
  for (const audit of serverAudits({ url: () => `${app.url}/graphql` })) {
    const must = audit.name.startsWith('MUST');
    it(audit.name, async () => {
      const result = await audit.fn();
      if (result.status === 'ok') return;
      if (must) assert.fail(`${result.reason}${'response' in result ? ` (answered ${result.response.status})` : ''}`);
      process.stdout.write(`# ${result.status}: ${audit.name}: ${result.reason}\n`);
    });
  }
});
