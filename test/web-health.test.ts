import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { DEMO_PASSWORD } from '../src/seed/demo.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { findChromium, launchChromium, seriousViolations } from './helpers/browser.js';
import { eventually, Receiver } from './helpers/receiver.js';
import { newDeliveryId, payloadText } from '../src/webhooks/config/payload.js';

// A webhook's health on its page (Setup > Webhooks > one webhook), in a real Chromium: the charts hold exactly the
// points the API answered the page with, the captions say them in words, the numbers are in a table, an empty
// window says so, the list shows each webhook's last day at a glance, a recovery of many deliveries is followed by a
// progress bar until they are sent, and axe-core finds nothing serious.

const chromiumFound = findChromium();
const skip = 'missing' in chromiumFound ? `browser tests did not run: ${chromiumFound.missing}` : false;

let app: TestApp;
let receiver: Receiver;
let browser: Browser;
let owner: string;

before(async () => {
  if (skip) return;
  app = await startTestApp();
  receiver = await new Receiver().start();
  browser = await launchChromium((chromiumFound as { path: string }).path);
  owner = await app.login('owner@acme.test');
});
after(async () => {
  await browser?.close();
  await receiver?.close();
  await app?.close();
});

const hook = async (title: string) =>
  (
    await app.request('POST', '/api/webhooks', {
      token: owner,
      body: { title, url: `${receiver.url}/${title}`, events: ['agent.created'] },
    })
  ).body.data.id as number;

async function open(page: Page, id: number) {
  await page.goto(`${app.url}/`);
  await page.getByLabel('Email').fill('owner@acme.test');
  await page.getByLabel('Password').fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
  const answer = page.waitForResponse(
    async (res) => res.url().endsWith('/graphql') && (res.request().postData() ?? '').includes('query WebhookStats('),
  );
  await page.goto(`${app.url}/#/setup/webhooks/${id}`);
  return (await (await answer).json()).data.webhookStats as {
    points: Array<{ at: string; success: number; p50Ms: number | null; p99Ms: number | null }>;
  };
}

describe('webhook health in the browser', { skip }, () => {
  it('draws the points the API returns, and says them in words and numbers', async () => {
    const id = await hook('charted');
    for (const name of ['Ada', 'Grace', 'Edsger'])
      assert.equal((await app.request('POST', '/api/agents', { token: owner, body: { name } })).status, 201);
    await eventually(async () =>
      (await receiver.received.filter((r) => r.path === '/charted').length) === 3 ? true : undefined,
    );
    await eventually(async () => {
      const res = await app.request('GET', `/api/webhooks/${id}/stats`, { token: owner });
      return res.body.data.totals.attempts === 3 ? true : undefined;
    });
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    const stats = await open(page, id);
    const outcomes = page.getByRole('figure', { name: /Attempts by outcome/ });
    await outcomes.waitFor();
    assert.match((await outcomes.locator('figcaption').textContent()) ?? '', /3 attempts, 3 succeeded/);
    await page.getByRole('figure', { name: /Answer time/ }).waitFor();
    // What each chart holds is what the API answered: the bucket starts, the successes, the answer times.
    const drawn = await page.evaluate(() =>
      [...document.querySelectorAll('[data-points]')].map(
        (el) => (el as HTMLElement & { chartData: Array<Array<number | null>> }).chartData,
      ),
    );
    const at = stats.points.map((p) => Date.parse(p.at) / 1000);
    assert.deepEqual(drawn[0], [at, stats.points.map((p) => p.success)]);
    assert.deepEqual(drawn[1], [at, stats.points.map((p) => p.p50Ms), stats.points.map((p) => p.p99Ms)]);
    assert.equal(
      stats.points.reduce((n, p) => n + p.success, 0),
      3,
    );
    // Each chart is drawn: a canvas with room.
    const canvases = await page
      .locator('.health canvas')
      .evaluateAll((els) => els.map((c) => (c as HTMLCanvasElement).width));
    assert.ok(canvases.length === 2 && canvases.every((w) => w >= 320), String(canvases));
    // The numbers behind it, for a reader without the chart.
    await outcomes.getByText('The numbers').click();
    assert.equal(await outcomes.locator('details tbody tr').count(), stats.points.length);
    assert.deepEqual(await seriousViolations(page), []);
    // In the list, the webhook's last day at a glance: its success rate and its trend of hourly attempts.
    await page.goto(`${app.url}/#/setup/webhooks`);
    const row = page.getByRole('row').filter({ hasText: 'charted' });
    await row.getByText('100 % of 3 succeeded').waitFor();
    const trend = await row
      .locator('[data-trend]')
      .evaluate((el) => (el as HTMLElement & { chartData: number[][] }).chartData);
    assert.equal(
      trend[1].reduce((a, b) => a + b, 0),
      3,
    );
    assert.equal(
      trend[2].reduce((a, b) => a + b, 0),
      3,
    );
    assert.deepEqual(await seriousViolations(page), []);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('says an empty window is empty', async () => {
    const id = await hook('quiet');
    const page = await browser.newPage();
    const stats = await open(page, id);
    assert.ok(stats.points.every((p) => p.success === 0));
    await page.getByText('No attempts in this window.').waitFor();
    assert.equal(await page.locator('.health figure').count(), 0);
    await page.close();
  });

  it('follows a recovery of many failed deliveries with a progress bar until they are sent', async () => {
    const slow = await new Receiver().start();
    slow.answer = () => ({ status: 200, delayMs: 150 });
    try {
      const res = await app.request('POST', '/api/webhooks', {
        token: owner,
        body: { title: 'recovered', url: `${slow.url}/r`, events: ['agent.created'] },
      });
      const id: number = res.body.data.id;
      const failedAt = new Date(Date.now() - 3_600_000);
      const rows = Array.from({ length: 40 }, (_, i) => ({
        id: newDeliveryId(),
        payload: payloadText({
          event: 'agent.created',
          occurredAt: failedAt,
          webhookId: id,
          data: { agent_id: String(i + 1), name: `Failed ${i}`, active: true, online: false },
          contact: null,
        }),
      }));
      await app.sql(
        `INSERT INTO webhook_deliveries (id, webhook_id, company_id, event, status, payload, attempt_count, final_attempt,
           next_attempt_at, next_trigger, created_at)
         SELECT r.id, $1, w.company_id, 'agent.created', 'failed', r.payload, 5, 5, NULL, 'scheduled', $2
         FROM json_to_recordset($3::json) AS r(id text, payload text), webhooks w WHERE w.id = $1`,
        [id, failedAt, JSON.stringify(rows)],
      );
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await open(page, id);
      const local = new Date(Date.now() - 2 * 3_600_000 - new Date().getTimezoneOffset() * 60_000);
      await page.getByLabel('Recover failed since').fill(local.toISOString().slice(0, 16));
      await page.getByRole('button', { name: 'Recover', exact: true }).click();
      const bar = page.locator('.sending progress');
      await bar.waitFor();
      assert.equal(await bar.getAttribute('max'), '40');
      await page.getByText('Recovered deliveries: all 40 sent.').waitFor({ timeout: 30_000 });
      assert.equal(await bar.getAttribute('value'), '40');
      assert.equal(new Set(slow.received.map((r) => r.headers['webhook-id'])).size, 40);
      await page.close();
    } finally {
      await slow.close();
    }
  });
});
