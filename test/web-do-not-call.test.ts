import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { DEMO_PASSWORD } from '../src/seed/demo.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { findChromium, launchChromium, seriousViolations } from './helpers/browser.js';

// Setup > Do not call in a real Chromium: numbers added many at once from the page (stored with the page as their
// source), a bad one named under the field and nothing added, the list searched and a number taken off, what the
// API then holds; axe-core finds nothing serious.

const chromiumFound = findChromium();
const skip = 'missing' in chromiumFound ? `browser tests did not run: ${chromiumFound.missing}` : false;

let app: TestApp;
let browser: Browser;
let owner: string;

before(async () => {
  if (skip) return;
  app = await startTestApp();
  browser = await launchChromium((chromiumFound as { path: string }).path);
  owner = await app.login('owner@acme.test');
});
after(async () => {
  await browser?.close();
  await app?.close();
});

const listed = async () =>
  (await app.request('GET', '/api/do-not-call', { token: owner })).body.data.records.map(
    (r: { phone_number: string; source: string; note: string | null }) => [r.phone_number, r.source, r.note],
  );

describe('the do-not-call page in the browser', { skip }, () => {
  it('adds numbers, names a bad one, searches, and takes one off', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(`${app.url}/`);
    await page.getByLabel('Email').fill('owner@acme.test');
    await page.getByLabel('Password').fill(DEMO_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Do not call' }).click();
    await page.getByRole('heading', { name: 'Do not call', level: 1 }).waitFor();
    await page.getByText('No number is on the list.').waitFor();

    // A bad number: named under the field, nothing added.
    await page.getByLabel('Numbers to add').fill('+14155550101\n555-0101');
    await page.getByRole('button', { name: 'Add to the list' }).click();
    await page.getByText(/must be E\.164.*"555-0101"/).waitFor();
    assert.equal(await page.getByLabel('Numbers to add').getAttribute('aria-invalid'), 'true');
    assert.deepEqual(await listed(), []);

    await page.getByLabel('Numbers to add').fill('+14155550101\n+14155550102, +442071838750');
    await page.getByLabel('Note (optional)').fill('Asked on a call');
    await page.getByRole('button', { name: 'Add to the list' }).click();
    await page.getByText('3 numbers added.').waitFor();
    await page.getByRole('cell', { name: '+442071838750', exact: true }).waitFor();
    assert.deepEqual(await listed(), [
      ['+442071838750', 'page', 'Asked on a call'],
      ['+14155550102', 'page', 'Asked on a call'],
      ['+14155550101', 'page', 'Asked on a call'],
    ]);
    assert.deepEqual(await seriousViolations(page), []);

    await page.getByLabel('Search numbers').fill('4420');
    await page.getByRole('cell', { name: '+14155550101', exact: true }).waitFor({ state: 'detached' });
    assert.equal(await page.locator('tbody tr').count(), 1);
    await page.getByRole('button', { name: 'Remove +442071838750 from the list' }).click();
    await page.getByText('+442071838750 was taken off the list.').waitFor();
    await page.getByText('No number matches.').waitFor();
    assert.deepEqual(
      (await listed()).map((r: string[]) => r[0]),
      ['+14155550102', '+14155550101'],
    );
    assert.deepEqual(problems, []);
    await page.close();
  });
});
