import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { DEMO_PASSWORD } from '../src/seed/demo.js';
import { postCallback } from './helpers/callbacks.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { findChromium, launchChromium, seriousViolations } from './helpers/browser.js';
import { eventually, Receiver, type Received } from './helpers/receiver.js';

// The call path's health on Setup > Call routing, in a real Chromium: each decision endpoint and each agent tool
// shows its last day at a glance; its health panel charts exactly the points the API answered the page with, says
// them in words and in a table; a tool never called says so; axe-core finds nothing serious.

const chromiumFound = findChromium();
const skip = 'missing' in chromiumFound ? `browser tests did not run: ${chromiumFound.missing}` : false;

let app: TestApp;
let endpoint: Receiver;
let browser: Browser;
let owner: string;
let account: { sid: string; authToken: string; companyId: number };
let number: string;
let agentName: string;

const post = (path: string, fields: Record<string, string>) =>
  postCallback(app.url, account.authToken, path, {
    AccountSid: account.sid,
    From: '+14155550177',
    To: number,
    ...fields,
  });

before(async () => {
  if (skip) return;
  app = await startTestApp({ CALL_PATH_STATS_EVERY: '100ms' });
  endpoint = await new Receiver().start();
  browser = await launchChromium((chromiumFound as { path: string }).path);
  owner = await app.login('owner@acme.test');
  account = await app.providerAccount();
  const [row] = await app.sql('SELECT id, phone_no FROM phone_numbers WHERE company_id = $1 ORDER BY id LIMIT 1', [
    account.companyId,
  ]);
  number = row.phone_no;
  const [agent] = await app.sql('SELECT id, name FROM agents WHERE company_id = $1 ORDER BY id LIMIT 1', [
    account.companyId,
  ]);
  agentName = agent.name;
  await app.sql('UPDATE phone_numbers SET chatbot_agent_id = $1 WHERE id = $2', [agent.id, row.id]);
  assert.equal(
    (
      await app.request('POST', '/api/decision-endpoints', {
        token: owner,
        body: { url: `${endpoint.url}/decide`, deadline_ms: 3000, fallback_action: 'answer' },
      })
    ).status,
    201,
  );
  for (const name of ['check_availability', 'never_called']) {
    const tool = await app.request('POST', `/api/agents/${agent.id}/tools`, {
      token: owner,
      body: {
        name,
        description: 'd',
        parameters: { type: 'object' },
        url: `${endpoint.url}/${name}`,
        fallback_message: 'Not now.',
      },
    });
    assert.equal(tool.status, 201, tool.text);
  }
});
after(async () => {
  await browser?.close();
  await endpoint?.close();
  await app?.close();
});

async function signIn(page: Page) {
  await page.goto(`${app.url}/`);
  await page.getByLabel('Email').fill('owner@acme.test');
  await page.getByLabel('Password').fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
}

/** Clicks a row's Health button and returns what the API answered the panel with. */
async function chart(page: Page, button: string | RegExp) {
  const answer = page.waitForResponse(
    async (res) => res.url().endsWith('/graphql') && (res.request().postData() ?? '').includes('query CallPathStats('),
  );
  await page.getByRole('button', { name: button }).click();
  return Object.values((await (await answer).json()).data)[0] as {
    points: Array<Record<string, number | null> & { at: string }>;
  };
}

describe('call path health in the browser', { skip }, () => {
  it('shows each endpoint and tool at a glance and charts the points the API returns', async () => {
    // Three calls decided (two answered, one 500), and two tool calls answered.
    // Counted by decision request: the connection warm-ups (OPTIONS) arrive when they will.
    let asked = 0;
    endpoint.answer = (r: Received) => {
      if (!r.body.includes('"call.inbound"'))
        return { status: 200, headers: { 'content-type': 'application/json' }, body: '{"result":{"free":true}}' };
      asked += 1;
      return asked === 3
        ? { status: 500 }
        : { status: 200, headers: { 'content-type': 'application/json' }, body: '{"action":"answer"}' };
    };
    const sid = `CA${randomBytes(16).toString('hex')}`;
    for (const callSid of [sid, `CA${randomBytes(16).toString('hex')}`, `CA${randomBytes(16).toString('hex')}`])
      assert.equal((await post('/api/telco/voice/inbound', { CallSid: callSid })).status, 200);
    assert.equal((await post('/api/telco/voice/status', { CallSid: sid, CallStatus: 'in-progress' })).status, 204);
    for (const sequence of ['0', '1'])
      assert.equal(
        (await post('/api/telco/voice/tool', { CallSid: sid, Sequence: sequence, Tool: 'check_availability' })).status,
        200,
      );
    const decisions = endpoint.received.filter((r) => r.body.includes('"call.inbound"')).length;
    assert.equal(decisions, 3);
    await eventually(async () => {
      const res = await app.graphql('query { decisionEndpoints { id } }', {}, owner);
      const id = res.body.data.decisionEndpoints[0].id;
      const stats = await app.request('GET', `/api/decision-endpoints/${id}/stats`, { token: owner });
      return stats.body.data.totals.questions === 3 ? true : undefined;
    });

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    await signIn(page);
    await page.goto(`${app.url}/#/setup/call-routing`);
    await page.getByRole('heading', { name: 'Call routing', level: 1 }).waitFor();
    // At a glance: the endpoint's last day, and each tool's.
    const endpointRow = page.getByRole('row').filter({ hasText: `${endpoint.url}/decide` });
    await endpointRow.getByText('66.7 % of 3 answered').waitFor();
    const trend = await endpointRow
      .locator('[data-trend]')
      .evaluate((el) => (el as HTMLElement & { chartData: number[][] }).chartData);
    assert.deepEqual([trend[1].reduce((a, b) => a + b, 0), trend[2].reduce((a, b) => a + b, 0)], [3, 2]);
    const toolRow = page.getByRole('row').filter({ hasText: 'check_availability' });
    await toolRow.getByText('100 % of 2 answered').waitFor();
    await page.getByRole('row').filter({ hasText: 'never_called' }).getByText('no questions in the last day').waitFor();

    // The endpoint's health: the charts hold what the API answered.
    const stats = await chart(page, 'Health of the endpoint for Every number');
    const outcomes = page.getByRole('figure', { name: /Answers by outcome/ });
    await outcomes.waitFor();
    assert.match((await outcomes.locator('figcaption').textContent()) ?? '', /3 questions, 2 answered/);
    await page.getByText(/3 questions: 66\.7 % answered, 1 given the fallback/).waitFor();
    const drawn = await page.evaluate(() =>
      [...document.querySelectorAll('.health [data-points]')].map(
        (el) => (el as HTMLElement & { chartData: Array<Array<number | null>> }).chartData,
      ),
    );
    const at = stats.points.map((p) => Date.parse(p.at) / 1000);
    assert.deepEqual(drawn[0], [at, stats.points.map((p) => p.answered), stats.points.map((p) => p.error)]);
    assert.deepEqual(drawn[1], [
      at,
      ...['addedP50Ms', 'addedP99Ms', 'endpointP50Ms', 'endpointP99Ms'].map((k) => stats.points.map((p) => p[k])),
    ]);
    const canvases = await page
      .locator('.health canvas')
      .evaluateAll((els) => els.map((c) => (c as HTMLCanvasElement).width));
    assert.ok(canvases.length === 2 && canvases.every((w) => w >= 320), String(canvases));
    await outcomes.getByText('The numbers').click();
    assert.equal(await outcomes.locator('details tbody tr').count(), stats.points.length);
    assert.deepEqual(await seriousViolations(page), []);

    // A tool's health, and a tool never called.
    const tool = await chart(page, `Health of the tool check_availability of ${agentName}`);
    assert.equal(
      tool.points.reduce((n, p) => n + (p.answered ?? 0), 0),
      2,
    );
    await page.getByRole('heading', { name: 'Health of the tool check_availability' }).waitFor();
    await page.getByRole('figure', { name: /2 questions, 2 answered/ }).waitFor();
    await chart(page, `Health of the tool never_called of ${agentName}`);
    await page.getByText('No questions in this window.').waitFor();
    assert.equal(await page.locator('.health figure').count(), 0);
    assert.deepEqual(await seriousViolations(page), []);
    assert.deepEqual(problems, []);
    await page.close();
  });
});
