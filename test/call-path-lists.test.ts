import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BOUNDS } from '../src/kernel/bounds.js';
import { ENDPOINTS_MAX } from '../src/decisions/decision.service.js';
import { TOOLS_PER_AGENT } from '../src/decisions/tool.service.js';
import { makeAuthority } from './helpers/certificates.js';
import { startTestApp, type TestApp } from './helpers/app.js';

// The call path's lists at their largest: a company's decision endpoints
// (its own and one per number, 100) and an agent's tools (50), every record
// as large as the API allows (the longest URL, credentials with a client
// certificate, key and CA, the largest parameters schema and texts), each
// answered whole over REST and GraphQL, and one more refused by name.

let app: TestApp;
let owner: string;
let agentId: number;
const long = (n: number, seed: string) => seed.repeat(Math.ceil(n / seed.length)).slice(0, n);

before(async () => {
  app = await startTestApp();
  owner = await app.login('owner@acme.test');
  const account = await app.providerAccount();
  [{ id: agentId }] = await app.sql('SELECT id FROM agents WHERE company_id = $1 ORDER BY id LIMIT 1', [
    account.companyId,
  ]);
  // Numbers enough for an endpoint each, beside the company's own.
  await app.sql(
    `INSERT INTO phone_numbers (company_id, phone_no, created_at, updated_at)
     SELECT $1, '+1646555' || lpad(n::text, 4, '0'), now(), now() FROM generate_series(1, $2) n`,
    [account.companyId, ENDPOINTS_MAX],
  );
});
after(() => app?.close());

describe('the call path lists at their largest', () => {
  it(`${ENDPOINTS_MAX} decision endpoints of the largest kind answer whole, and one more is refused`, async () => {
    const authority = makeAuthority();
    const numbers = await app.sql("SELECT id FROM phone_numbers WHERE phone_no LIKE '+1646555%' ORDER BY id LIMIT $1", [
      ENDPOINTS_MAX,
    ]);
    const url = (i: number) => {
      const base = `https://hooks.example.com/${i}/`;
      return base + long(BOUNDS.decisionEndpoint.url.maxLength - base.length, 'p');
    };
    const credentials = {
      oauth2: {
        token_url: `https://auth.example.com/${long(1900, 't')}`,
        client_id: long(255, 'c'),
        client_secret: long(1024, 's'),
        scope: long(1000, 'o'),
      },
      tls: { client_certificate: authority.client.cert, client_key: authority.client.key, ca: authority.ca },
    };
    for (let i = 0; i < ENDPOINTS_MAX; i++) {
      const created = await app.request('POST', '/api/decision-endpoints', {
        token: owner,
        body: {
          url: url(i),
          phone_number_id: i === 0 ? null : String(numbers[i - 1].id),
          deadline_ms: BOUNDS.decisionEndpoint.deadlineMs.maximum,
          hedge: true,
          fallback_action: 'forward',
          fallback_forward_to: '+12125550142',
          credentials,
        },
      });
      assert.equal(created.status, 201, `${i}: ${created.text.slice(0, 300)}`);
    }
    const one = await app.request('POST', '/api/decision-endpoints', {
      token: owner,
      body: { url: url(999), phone_number_id: String(numbers[ENDPOINTS_MAX - 1].id), fallback_action: 'reject' },
    });
    assert.equal(one.status, 422, one.text);
    assert.equal(one.body.message, `A company has at most ${ENDPOINTS_MAX} decision endpoints.`);
    const rest = await app.request('GET', '/api/decision-endpoints', { token: owner });
    assert.equal(rest.status, 200, rest.text.slice(0, 300));
    assert.equal(rest.body.data.length, ENDPOINTS_MAX);
    assert.equal(rest.body.data[0].credentials.tls.client_certificate_subject, 'CN=switchboard-client');
    const graphql = await app.graphql(
      `{ decisionEndpoints { id url phoneNumberId deadlineMs hedge fallback { action agentId forwardTo }
         breaker { state consecutiveFailures openedAt recentP95Ms }
         credentials { oauth2 { tokenUrl clientId scope } tls { clientCertificateSubject clientCertificateExpiresAt customCa } }
         createdAt updatedAt } }`,
      {},
      owner,
    );
    assert.equal(graphql.status, 200, graphql.text.slice(0, 300));
    assert.equal(graphql.body.errors, undefined, JSON.stringify(graphql.body.errors));
    assert.equal(graphql.body.data.decisionEndpoints.length, ENDPOINTS_MAX);
  });

  it(`${TOOLS_PER_AGENT} tools of the largest kind answer whole, and one more is refused`, async () => {
    const parameters = { type: 'object', description: long(19_900, 'd') };
    const tool = (i: number) => ({
      name: `tool_${String(i).padStart(2, '0')}_${long(50, 'n')}`,
      description: long(BOUNDS.agentTool.description.maxLength, 'x'),
      parameters,
      url: `https://tools.example.com/${long(BOUNDS.agentTool.url.maxLength - 26, 'u')}`,
      deadline_ms: BOUNDS.agentTool.deadlineMs.maximum,
      fallback_message: long(BOUNDS.agentTool.fallbackMessage.maxLength, 'f'),
    });
    for (let i = 0; i < TOOLS_PER_AGENT; i++) {
      const created = await app.request('POST', `/api/agents/${agentId}/tools`, { token: owner, body: tool(i) });
      assert.equal(created.status, 201, `${i}: ${created.text.slice(0, 300)}`);
    }
    const one = await app.request('POST', `/api/agents/${agentId}/tools`, { token: owner, body: tool(99) });
    assert.equal(one.status, 422, one.text.slice(0, 300));
    assert.equal(one.body.message, `An agent has at most ${TOOLS_PER_AGENT} tools.`);
    const rest = await app.request('GET', `/api/agents/${agentId}/tools`, { token: owner });
    assert.equal(rest.status, 200, rest.text.slice(0, 300));
    assert.equal(rest.body.data.length, TOOLS_PER_AGENT);
    const graphql = await app.graphql(
      `query($id: ID!) { agentTools(agentId: $id) { id agentId name description parameters url deadlineMs fallbackMessage
         breaker { state consecutiveFailures openedAt recentP95Ms } credentials { oauth2 { tokenUrl } } createdAt updatedAt } }`,
      { id: String(agentId) },
      owner,
    );
    assert.equal(graphql.body.errors, undefined, JSON.stringify(graphql.body.errors));
    assert.equal(graphql.body.data.agentTools.length, TOOLS_PER_AGENT);
  });
});
