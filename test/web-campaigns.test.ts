import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { DEMO_PASSWORD } from '../src/seed/demo.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { findChromium, launchChromium, seriousViolations } from './helpers/browser.js';

// Dialer > Campaigns in a real Chromium: a campaign's leads added from a CSV file on its page (a bad row named by its
// line), started from the page, its progress bar and counts moving as the simulator's calls end, paused and resumed,
// its leads filtered by state; what the API then holds; axe-core finds nothing serious.

const chromiumFound = findChromium();
const skip = 'missing' in chromiumFound ? `browser tests did not run: ${chromiumFound.missing}` : false;

let app: TestApp;
let browser: Browser;
let owner: string;

before(async () => {
  if (skip) return;
  app = await startTestApp({ TELCO_SIM_TIME_SCALE: '0.05', DIALER_TICK: '50ms', DIALER_CALLS_PER_SECOND: '5' });
  browser = await launchChromium((chromiumFound as { path: string }).path);
  owner = await app.login('owner@acme.test');
});
after(async () => {
  await browser?.close();
  await app?.close();
});

describe('the campaign page in the browser', { skip }, () => {
  it('imports leads, starts, shows the progress live, pauses, resumes and filters the leads', async () => {
    const created = await app.request('POST', '/api/campaigns', {
      token: owner,
      body: { name: 'Winter renewals', dialing: { concurrency: 2, hours_start: '00:00', hours_end: '24:00' } },
    });
    const id = created.body.data.id;
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(`${app.url}/`);
    await page.getByLabel('Email').fill('owner@acme.test');
    await page.getByLabel('Password').fill(DEMO_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Campaigns' }).click();
    await page.getByRole('link', { name: 'Winter renewals' }).click();
    await page.getByRole('heading', { name: 'Winter renewals', level: 1 }).waitFor();

    const rows = ['+14155550701', '+14155550711', '+14155550726', '+14155550738', '+14155550741', '+14155550751'];
    await page.getByLabel(/Add leads from a CSV file/).setInputFiles({
      name: 'leads.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(`phone_number,plan\n${rows.join(',gold\n')},gold\n555-0101,silver\n`),
    });
    await page.getByText('6 leads added from leads.csv, 1 refused (below).').waitFor();
    await page.getByText(/Line 8, phone_number: "555-0101" is not an E\.164 number/).waitFor();
    // The counts are read again after the import's answer: they come to six pending.
    await page.waitForFunction(
      () => document.querySelector('dd[data-state="pending"]')?.textContent === '6',
      undefined,
      {
        timeout: 10_000,
      },
    );
    assert.deepEqual(await seriousViolations(page), []);

    await page.getByRole('button', { name: 'Start' }).click();
    await page.getByText('The campaign was started.').waitFor();
    // The bar moves as calls end, without a reload.
    await page.waitForFunction(
      () => Number((document.getElementById('campaign-progress') as HTMLProgressElement | null)?.value ?? 0) >= 1,
      undefined,
      { timeout: 20_000 },
    );
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByTestId('campaign-status').getByText('paused').waitFor();
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.getByTestId('campaign-status').getByText('running').waitFor();
    // Six leads: four answered, one no answer to be retried later (waiting), one a machine answered (voicemail).
    await page.waitForFunction(
      () => document.querySelector('dd[data-state="answered"]')?.textContent === '4',
      undefined,
      {
        timeout: 30_000,
      },
    );
    await page.getByLabel('Show').selectOption('answered');
    await page.getByRole('cell', { name: '+14155550726', exact: true }).waitFor({ state: 'detached' });
    assert.equal(await page.locator('tbody tr').count(), 4);
    await page.getByLabel('Show').selectOption('waiting');
    await page.getByRole('cell', { name: '+14155550701', exact: true }).waitFor({ state: 'detached' });
    await page.getByRole('cell', { name: '+14155550726', exact: true }).waitFor();
    assert.equal(await page.locator('tbody tr').count(), 1);
    assert.deepEqual(await seriousViolations(page), []);

    const progress = (await app.request('GET', `/api/campaigns/${id}/progress`, { token: owner })).body.data;
    assert.deepEqual([progress.total, progress.answered, progress.voicemail, progress.waiting], [6, 4, 1, 1]);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('schedules a draft from the page, shows when it starts, and cancels it', async () => {
    const created = await app.request('POST', '/api/campaigns', { token: owner, body: { name: 'Spring check-ins' } });
    const id = created.body.data.id;
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${app.url}/`);
    await page.getByLabel('Email').fill('owner@acme.test');
    await page.getByLabel('Password').fill(DEMO_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.goto(`${app.url}/#/campaigns/${id}`);
    await page.getByRole('heading', { name: 'Spring check-ins', level: 1 }).waitFor();
    // An hour ahead on the browser's clock, as the datetime-local field takes it (no offset: the browser's zone).
    const local = await page.evaluate(() => {
      const at = new Date(Date.now() + 3_600_000);
      at.setSeconds(0, 0);
      return new Date(at.getTime() - at.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
    });
    await page.getByLabel('Start at').fill(local);
    await page.getByRole('button', { name: 'Schedule' }).click();
    await page.getByTestId('campaign-status').getByText('scheduled').waitFor();
    await page.getByText(/^Starts /).waitFor();
    const scheduled = (await app.request('GET', `/api/campaigns/${id}`, { token: owner })).body.data;
    const expected = await page.evaluate((text) => new Date(text).toISOString(), local);
    assert.deepEqual([scheduled.status, scheduled.starts_at], ['scheduled', expected]);
    assert.deepEqual(await seriousViolations(page), []);
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByTestId('campaign-status').getByText('canceled').waitFor();
    await page.close();
  });
});
