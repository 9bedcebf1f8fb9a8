import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createPublicKey, verify } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { startTestApp, type TestApp } from './helpers/app.js';
import { findChromium, launchChromium, seriousViolations } from './helpers/browser.js';
import { jsonLines } from './helpers/processes.js';
import { eventually, Receiver } from './helpers/receiver.js';
import { DEMO_PASSWORD } from '../src/seed/demo.js';
import { randomBytes } from 'node:crypto';
import { postCallback } from './helpers/callbacks.js';

// The web interface in a real Chromium: a person signs in at `/` and manages
// webhooks under Setup > Webhooks without touching the API. Every step is
// checked where a user would look (the page) and where it lands (the
// database, the receiver).

const chromiumFound = findChromium();
const skip = 'missing' in chromiumFound ? `browser tests did not run: ${chromiumFound.missing}` : false;
if (skip) process.stdout.write(`# ${skip}\n`);

let app: TestApp;
let receiver: Receiver;
let browser: Browser;

before(async () => {
  if (skip) return;
  app = await startTestApp();
  receiver = await new Receiver().start();
  browser = await launchChromium((chromiumFound as { path: string }).path);
});

after(async () => {
  await browser?.close();
  await receiver?.close();
  await app?.close();
});

async function newPage(viewport = { width: 1280, height: 900 }): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error' && !/status of (401|403|404|409|422|429)/.test(message.text()))
      problems.push(message.text());
  });
  // Nothing is loaded from anywhere but the service.
  page.on('request', (request) => {
    if (!request.url().startsWith(`${app.url}/`) && !request.url().startsWith('data:'))
      problems.push(`request to ${request.url()}`);
  });
  (page as Page & { problems: string[] }).problems = problems;
  return { context, page };
}

async function signIn(page: Page, email = 'owner@acme.test'): Promise<void> {
  await page.goto(`${app.url}/`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
}

const noSerious = async (page: Page, where: string) =>
  assert.deepEqual(await seriousViolations(page), [], `axe-core on ${where}`);

/** The texts of the dialog's labels and legends that spill out of their box (wider than it, or past its right edge). */
const spilled = (page: Page) =>
  page.evaluate(() =>
    [...document.querySelectorAll('dialog label, dialog legend')].flatMap((element) => {
      const box = element.getBoundingClientRect();
      const container = element.parentElement!.getBoundingClientRect();
      return element.scrollWidth > element.clientWidth + 1 || box.right > container.right + 1
        ? [element.textContent ?? '']
        : [];
    }),
  );

/** `npm run receiver` (examples/receiver.mjs) as a user runs it, with WEBHOOK_SECRETS and RECEIVER_PORT; its JSON lines by webhook-id. */
async function exampleReceiver(
  secrets: string,
  port = 0,
): Promise<{ port: number; line: (id: string) => Promise<Record<string, unknown>>; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, ['examples/receiver.mjs'], {
    env: { PATH: process.env.PATH ?? '', WEBHOOK_SECRETS: secrets, RECEIVER_PORT: String(port) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const output = jsonLines(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const listening = await output.find((line) => 'listening' in line, 'the example receiver to listen');
  return {
    port: listening.listening as number,
    line: (id) => output.find((line) => line.id === id, `the receiver's line for ${id}`),
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

describe('web interface', { skip }, () => {
  it('serves the app at / to browsers with a strict policy, and the API pointer to JSON clients', async () => {
    const page = await app.request('GET', '/', { headers: { accept: 'text/html' } });
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(page.text, /<script type="module" src="\/assets\/app\.js\?v=[0-9a-f]{12}"><\/script>/);
    assert.match(
      page.headers.get('content-security-policy') ?? '',
      /default-src 'self'.*script-src 'self'.*frame-ancestors 'none'/,
    );
    const script = await app.request('GET', page.text.match(/\/assets\/app\.js\?v=[0-9a-f]+/)![0]);
    assert.equal(script.status, 200);
    assert.match(script.headers.get('content-type') ?? '', /javascript/);
    // Assets are this origin's own (the browser test also checks every request the page makes).
    assert.deepEqual(page.text.match(/(?:src|href)="[^"]*"/g), [
      'href="/favicon.svg"',
      `href="${page.text.match(/\/assets\/app\.css\?v=[0-9a-f]{12}/)![0]}"`,
      `src="${page.text.match(/\/assets\/app\.js\?v=[0-9a-f]{12}/)![0]}"`,
    ]);
    const json = await app.request('GET', '/', { headers: { accept: 'application/json' } });
    assert.equal(json.body.graphql, '/graphql');
    assert.equal((await app.request('GET', '/assets/nothing.js')).status, 404);
  });

  it('takes a person from sign-in through every webhook task to sign-out', async () => {
    const { context, page } = await newPage();
    await page.goto(`${app.url}/`);
    await noSerious(page, 'the sign-in screen');
    await page.getByRole('heading', { name: 'Sign in to Switchboard' }).waitFor();
    assert.equal(await page.getByText('Demo logins').count(), 0, 'no demo logins outside development');

    // A wrong password is refused on the screen.
    await page.getByLabel('Email').fill('owner@acme.test');
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: /credentials|password|email/i })
      .waitFor();

    await signIn(page);
    await page.getByText('Acme Agency', { exact: true }).waitFor();
    await page
      .getByText(/Olivia Owner|\(Owner\)/)
      .first()
      .waitFor();
    // The list loads after the header: its first row is waited for, then the whole table is counted.
    await page.getByRole('row').filter({ hasText: 'CRM sync (example)' }).waitFor();
    assert.equal(await page.getByRole('row').count(), 2, 'the header row and the demo webhook');
    assert.match(await page.getByRole('row').nth(1).innerText(), /Inactive/);
    await noSerious(page, 'the webhook list');

    // Create: an empty form shows each error at its field and saves nothing.
    await page.getByRole('button', { name: 'New webhook' }).click();
    const dialog = page.getByRole('dialog', { name: 'New webhook' });
    await dialog.getByLabel('Title', { exact: true }).waitFor();
    await noSerious(page, 'the webhook form');
    await dialog.getByRole('button', { name: 'Create webhook' }).click();
    await dialog.locator('#wh-title-error').waitFor();
    assert.match(await dialog.locator('#wh-title-error').innerText(), /title field is required/i);
    assert.match(await dialog.locator('#wh-url-error').innerText(), /url field is required/i);
    assert.match(await dialog.locator('#wh-events-error').innerText(), /events field is required/i);
    assert.equal(await dialog.getByLabel('Title', { exact: true }).getAttribute('aria-invalid'), 'true');
    assert.equal((await app.sql('SELECT count(*)::int AS n FROM webhooks'))[0].n, 1);

    // The list selection fills the form data; the events come grouped by category.
    assert.equal(await dialog.getByLabel('Method').inputValue(), 'POST');
    await dialog.getByLabel('List selection').selectOption('Contact');
    assert.equal(await dialog.getByRole('checkbox', { name: 'email' }).isChecked(), true);
    assert.equal(await dialog.getByRole('checkbox', { name: 'city' }).isChecked(), false);
    // Every event name fits its cell, and the categories read as people write them.
    assert.deepEqual(await spilled(page), [], 'nothing spills out of its box at 1280 px');
    await dialog.getByRole('group', { name: 'SMS' }).getByRole('checkbox', { name: 'sms.received' }).waitFor();
    await dialog.getByRole('group', { name: 'Call' }).getByRole('checkbox', { name: 'call.ended' }).check();
    await dialog.getByRole('checkbox', { name: 'agent.created' }).check();
    await dialog.getByLabel('Title', { exact: true }).fill('Browser hook');
    await dialog.getByLabel('URL', { exact: true }).fill(`${receiver.url}/browser`);
    await dialog.getByRole('button', { name: 'Create webhook' }).click();

    const createdDialog = page.getByRole('dialog', { name: /Webhook #\d+ created/ });
    const secret = await createdDialog.getByRole('textbox', { name: 'Signing secret' }).inputValue();
    assert.match(secret, /^whsec_/);
    await createdDialog.getByRole('button', { name: 'Copy' }).click();
    await createdDialog.getByText('Copied to the clipboard.').waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), secret);
    const [row] = await app.sql(
      "SELECT id, url, events, form_data, list_selection, active FROM webhooks WHERE title = 'Browser hook'",
    );
    assert.equal(row.url, `${receiver.url}/browser`);
    assert.deepEqual([...row.events].sort(), ['agent.created', 'call.ended']);
    assert.equal(row.list_selection, 'Contact');
    assert.equal(row.active, true);
    await createdDialog.getByRole('link', { name: 'Open the webhook' }).click();
    await page.getByRole('heading', { name: `#${row.id} Browser hook` }).waitFor();

    // A test send arrives signed with the secret shown, and the page shows its result and attempt.
    await page.getByLabel('Event', { exact: true }).selectOption('agent.created');
    await page.getByRole('button', { name: 'Send test' }).click();
    const [first] = await receiver.waitFor(1);
    const headers = first.headers as Record<string, string>;
    assert.equal(JSON.parse(first.body).event, 'agent.created');
    assert.equal(new StandardWebhook(secret).verify(first.body, headers) !== undefined, true);
    await page
      .getByRole('status')
      .filter({ hasText: `(${headers['webhook-id']}): succeeded, HTTP 200` })
      .waitFor();
    const logRow = page.getByRole('row').filter({ hasText: 'agent.created' }).first();
    await logRow.getByText('succeeded').waitFor();
    // The webhook's Hits follow the delivery without a reload.
    await page.locator('.facts dd').nth(4).filter({ hasText: /^1$/ }).waitFor();
    // On a short screen the details open below the fold: they are brought into view, and the sidebar stays on screen.
    await page.setViewportSize({ width: 1280, height: 500 });
    await logRow.getByRole('button', { name: /Details of delivery/ }).click();
    const detail = page.locator('#delivery-detail');
    await detail.waitFor();
    const inView = () => detail.evaluate((el) => Math.abs(el.getBoundingClientRect().top) < window.innerHeight / 2);
    await eventually(async () => ((await inView()) ? true : undefined), 5_000, 'the details in view');
    assert.ok(await page.evaluate(() => window.scrollY > 0), 'the page scrolled to the details');
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    const sideTop = await page.locator('.side').evaluate((el) => el.getBoundingClientRect().top);
    assert.ok(Math.abs(sideTop) < 1, `the sidebar stays at the top of the screen (its top at ${sideTop})`);
    await page.setViewportSize({ width: 1280, height: 900 });
    assert.match(await detail.getByLabel('Payload').innerText(), /"event": "agent.created"/);
    assert.match(await detail.getByRole('row').nth(1).innerText(), /1\s+\S.*200\s+\d+ ms\s+ok/s);
    await noSerious(page, 'the webhook page with a delivery open');

    // The receiver fails; a resend from the log reaches it and the failed attempt shows.
    receiver.answer = () => ({ status: 500, body: 'receiver down' });
    await logRow.getByRole('button', { name: /Resend delivery/ }).click();
    await receiver.waitFor(2);
    await detail.getByRole('row').filter({ hasText: 'receiver down' }).waitFor();
    assert.match(await detail.getByRole('row').nth(2).innerText(), /2 \(manual\).*500.*receiver down/s);
    receiver.answer = () => ({ status: 200, body: 'ok' });

    // Recover: a failed delivery since a time is sent again.
    await app.sql("UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL WHERE webhook_id = $1", [
      row.id,
    ]);
    await page.getByLabel('Status', { exact: true }).selectOption('failed');
    await page.getByRole('row').filter({ hasText: 'failed' }).first().waitFor();
    const hourAgo = new Date(Date.now() - 3_600_000);
    const local = new Date(hourAgo.getTime() - hourAgo.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
    await page.getByLabel('Recover failed since').fill(local);
    await page.getByRole('button', { name: 'Recover' }).click();
    await page.getByText('1 failed delivery is being sent again.').waitFor();
    await receiver.waitFor(3);

    // Rotate: a new secret is shown and signs the next delivery; the old one still signs during the grace.
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page
      .getByRole('dialog', { name: 'Rotate the signing secret?' })
      .getByRole('button', { name: 'Rotate secret' })
      .click();
    await page.getByText(/The previous secret also signs deliveries until/).waitFor();
    const rotated = await page.getByRole('textbox', { name: 'Signing secret' }).inputValue();
    assert.notEqual(rotated, secret);
    assert.equal(
      await page
        .locator('main')
        .getByText('Signing secret', { exact: true })
        .filter({ visible: true })
        .evaluateAll((els) => els.filter((el) => !el.classList.contains('sr-only')).length),
      1,
      '“Signing secret” shows once: the heading',
    );
    await page.getByRole('button', { name: 'Send test' }).click();
    const [, , , fourth] = await receiver.waitFor(4);
    assert.ok(new StandardWebhook(rotated).verify(fourth.body, fourth.headers as Record<string, string>));
    assert.ok(new StandardWebhook(secret).verify(fourth.body, fourth.headers as Record<string, string>));

    // Edit, with the keyboard: Enter saves, Escape closes.
    await page.getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByRole('dialog', { name: `Edit webhook #${row.id}` });
    await edit.getByLabel('Title', { exact: true }).fill('Browser hook v2');
    await edit.getByLabel('Title', { exact: true }).press('Enter');
    await page.getByRole('heading', { name: `#${row.id} Browser hook v2` }).waitFor();
    assert.equal((await app.sql('SELECT title FROM webhooks WHERE id = $1', [row.id]))[0].title, 'Browser hook v2');
    // The details show the endpoint's concurrency and rate limit; a rate limit is set in the form, a bad one refused at its field.
    const facts = page.locator('.facts');
    const [{ concurrency }] = await app.sql(
      'SELECT coalesce(concurrency, 4) AS concurrency FROM webhooks WHERE id = $1',
      [row.id],
    );
    assert.match(await facts.innerText(), new RegExp(`Concurrency\\s+${concurrency} at once`));
    assert.match(await facts.innerText(), /Rate limit\s+None/);
    // Times are in the company's zone (Acme: New York) and say so; the same instant in UTC is on hover.
    const created = facts.locator('time').last();
    assert.match(await created.innerText(), /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} E[SD]T$/);
    const [{ utc }] = await app.sql(
      "SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS utc FROM webhooks WHERE id = $1",
      [row.id],
    );
    assert.match((await created.getAttribute('title'))!, new RegExp(`^${utc} UTC \\(`));
    await page.getByRole('button', { name: 'Edit' }).click();
    await edit.getByLabel(/Rate limit/).fill('lots');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await edit.locator('#wh-rate-limit-error').waitFor();
    assert.match(
      await edit.locator('#wh-rate-limit-error').innerText(),
      /whole number of deliveries per second from 1 to 1000/,
    );
    assert.equal((await app.sql('SELECT rate_limit FROM webhooks WHERE id = $1', [row.id]))[0].rate_limit, null);
    await edit.getByLabel(/Rate limit/).fill('20');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await facts.getByText('20 per second').waitFor();
    assert.equal((await app.sql('SELECT rate_limit FROM webhooks WHERE id = $1', [row.id]))[0].rate_limit, 20);
    await page.getByRole('button', { name: 'Edit' }).click();
    await edit.getByLabel('Title', { exact: true }).waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    // Focus returns to the button that opened the dialog.
    await page.waitForFunction(() => document.activeElement?.textContent === 'Edit', undefined, { timeout: 5000 });

    // Deactivate.
    await page.getByRole('button', { name: 'Deactivate' }).click();
    await page.getByText('The webhook is inactive').waitFor();
    assert.equal((await app.sql('SELECT active FROM webhooks WHERE id = $1', [row.id]))[0].active, false);

    // Delete from the list, after a confirmation that Escape dismisses.
    await page.getByRole('link', { name: '‹ All webhooks' }).click();
    const hookRow = page.getByRole('row').filter({ hasText: 'Browser hook v2' });
    await hookRow.getByRole('button', { name: 'Delete webhook Browser hook v2' }).click();
    await page.getByRole('dialog', { name: 'Delete this webhook?' }).waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    assert.equal((await app.sql('SELECT count(*)::int AS n FROM webhooks WHERE id = $1', [row.id]))[0].n, 1);
    await hookRow.getByRole('button', { name: 'Delete webhook Browser hook v2' }).click();
    await page
      .getByRole('dialog', { name: 'Delete this webhook?' })
      .getByRole('button', { name: 'Delete webhook' })
      .click();
    await page.getByText(`Webhook #${row.id} “Browser hook v2” was deleted.`).waitFor();
    assert.equal((await app.sql('SELECT count(*)::int AS n FROM webhooks WHERE id = $1', [row.id]))[0].n, 0);

    // Sign out: the token the tab held is revoked.
    const token = await page.evaluate(() => sessionStorage.getItem('switchboard.token'));
    assert.ok(token);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Switchboard' }).waitFor();
    assert.equal(await page.evaluate(() => sessionStorage.getItem('switchboard.token')), null);
    assert.equal((await app.request('GET', '/api/roles', { token: token! })).status, 401);
    assert.deepEqual((page as Page & { problems: string[] }).problems, []);
    await context.close();
  });

  it('keeps the example receiver accepting through a secret rotation made on the page, holding the old secret or the new', async () => {
    const owner = await app.login('owner@acme.test');
    const created = await app.request('POST', '/api/webhooks', {
      token: owner,
      body: { title: 'Rotation hook', url: 'http://127.0.0.1:9/none', events: ['agent.created'] },
    });
    assert.equal(created.status, 201, created.text);
    const { id, secret } = created.body.data as { id: number; secret: string };
    // The receiver holds only the secret it was given when the webhook was made.
    let kit = await exampleReceiver(secret);
    try {
      const { context, page } = await newPage();
      await signIn(page);
      await page.getByRole('link', { name: 'Rotation hook' }).click();
      await page.getByRole('heading', { name: `#${id} Rotation hook` }).waitFor();
      // Nothing listens at the URL yet: the test's result says why, inline, and when the next attempt is.
      await page.getByLabel('Event', { exact: true }).selectOption('agent.created');
      await page.getByRole('button', { name: 'Send test' }).click();
      await page
        .getByRole('status')
        .filter({
          hasText:
            /: pending, no response: .*(refused|ECONNREFUSED).*\. The next attempt is at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d E[SD]T\./,
        })
        .waitFor();
      assert.equal(
        (
          await app.request('PUT', `/api/webhooks/${id}`, {
            token: owner,
            body: { url: `http://127.0.0.1:${kit.port}/hooks` },
          })
        ).status,
        200,
      );
      await page.reload();
      await page.getByRole('heading', { name: `#${id} Rotation hook` }).waitFor();
      // Each send's own result: the line shows the previous send's until the new one replaces it.
      let previous = '';
      const sendTest = async (): Promise<string> => {
        await page.getByLabel('Event', { exact: true }).selectOption('agent.created');
        await page.getByRole('button', { name: 'Send test' }).click();
        const status = page.getByRole('status').filter({ hasText: /\(msg_/ });
        previous = await eventually(
          async () => {
            const sent = /\((msg_[^)]+)\): succeeded, HTTP 200/.exec(await status.innerText().catch(() => ''))?.[1];
            return sent && sent !== previous ? sent : undefined;
          },
          15_000,
          'the test send succeeded',
        );
        return previous;
      };
      const before = await sendTest();
      assert.deepEqual(await kit.line(before), {
        verified: true,
        payloadOk: true,
        event: 'agent.created',
        id: before,
        attempt: '1',
      });

      await page.getByRole('button', { name: 'Rotate secret' }).click();
      await page
        .getByRole('dialog', { name: 'Rotate the signing secret?' })
        .getByRole('button', { name: 'Rotate secret' })
        .click();
      await page.getByText(/The previous secret also signs deliveries until/).waitFor();
      const rotated = await page.getByRole('textbox', { name: 'Signing secret' }).inputValue();
      assert.notEqual(rotated, secret);
      // The next delivery reaches a receiver still on the old secret: webhook-signature carries a signature by each.
      // (x-webhook-signature is the current secret's alone, so the receiver reports it unmatched.)
      const during = await sendTest();
      assert.deepEqual(await kit.line(during), {
        verified: true,
        payloadOk: false,
        event: 'agent.created',
        id: during,
        attempt: '1',
      });

      // The receiver switched to the new secret alone accepts the next one too.
      const port = kit.port;
      await kit.stop();
      kit = await exampleReceiver(rotated, port);
      const after = await sendTest();
      assert.deepEqual(await kit.line(after), {
        verified: true,
        payloadOk: true,
        event: 'agent.created',
        id: after,
        attempt: '1',
      });
      const [{ succeeded }] = await app.sql(
        "SELECT count(*)::int AS succeeded FROM webhook_deliveries WHERE webhook_id = $1 AND status = 'succeeded'",
        [id],
      );
      assert.equal(succeeded, 3);
      assert.deepEqual((page as Page & { problems: string[] }).problems, []);
      await context.close();
    } finally {
      await kit.stop();
    }
  });

  it('offers the demo logins on the sign-in screen in development, and signs in with one', async () => {
    const development = await startTestApp({ NODE_ENV: 'development' });
    try {
      const { context, page } = await newPage();
      await page.goto(`${development.url}/`);
      const demo = page.getByRole('region', { name: 'Demo logins (development)' });
      await demo.getByText('Each uses the password switchboard.').waitFor();
      assert.deepEqual(await demo.getByRole('button').allInnerTexts(), [
        'owner@acme.test',
        'supervisor@acme.test',
        'owner@beta.test',
        'owner@gamma.test',
      ]);
      await demo.getByRole('button', { name: 'owner@beta.test' }).click();
      assert.equal(await page.getByLabel('Email').inputValue(), 'owner@beta.test');
      assert.equal(await page.getByLabel('Password').inputValue(), DEMO_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByText('Beta Clinic', { exact: true }).waitFor();
      await context.close();
    } finally {
      await development.close();
    }
  });

  it('sets custom headers in the form: a secret one is sent, shown by name only, and kept when saved unchanged', async () => {
    const { context, page } = await newPage();
    await signIn(page);
    await page.getByRole('button', { name: 'New webhook' }).click();
    const dialog = page.getByRole('dialog', { name: 'New webhook' });
    await dialog.getByLabel('Title', { exact: true }).fill('Gateway hook');
    await dialog.getByLabel('URL', { exact: true }).fill(`${receiver.url}/gateway`);
    await dialog.getByRole('checkbox', { name: 'agent.created' }).check();
    await dialog.getByRole('button', { name: 'Add header' }).click();
    // An empty name: the error names the field as the page shows it, and stays inside the dialog at a desktop's width and a phone's.
    await dialog.getByRole('button', { name: 'Create webhook' }).click();
    const nameError = dialog.locator('#wh-header-0-name-error');
    await nameError.getByText('Header 1: name is required.').waitFor();
    for (const width of [1280, 375]) {
      await page.setViewportSize({ width, height: 900 });
      const [box, error] = [await dialog.boundingBox(), await nameError.boundingBox()];
      assert.ok(
        box && error && error.x >= box.x && error.x + error.width <= box.x + box.width + 0.5,
        `at ${width} px the error runs past the dialog: ${JSON.stringify({ box, error })}`,
      );
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    await dialog.getByLabel('Header 1 name').fill('Host');
    await dialog.getByLabel('Header 1 value').fill('evil.example');
    await dialog.getByRole('button', { name: 'Create webhook' }).click();
    await dialog.getByText(/names a header Switchboard sets itself/).waitFor();
    assert.equal(await dialog.getByLabel('Header 1 name').getAttribute('aria-invalid'), 'true');
    await dialog.getByLabel('Header 1 name').fill('X-Api-Key');
    await dialog.getByRole('checkbox', { name: 'Secret' }).check();
    await dialog.getByLabel('Header 1 value').fill('key-from-the-page');
    await noSerious(page, 'the form with a custom header');
    await dialog.getByRole('button', { name: 'Create webhook' }).click();
    const createdDialog = page.getByRole('dialog', { name: /Webhook #\d+ created/ });
    await createdDialog.getByRole('link', { name: 'Open the webhook' }).click();
    await page.getByText('X-Api-Key (secret)').waitFor();
    const [row] = await app.sql("SELECT id, headers FROM webhooks WHERE title = 'Gateway hook'");
    assert.doesNotMatch(JSON.stringify(row.headers), /key-from-the-page/);

    // Saved again without touching the header: the secret value stays.
    await page.getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByRole('dialog', { name: `Edit webhook #${row.id}` });
    assert.equal(await edit.getByLabel('Header 1 value').inputValue(), '');
    assert.equal(await edit.getByLabel('Header 1 value').getAttribute('placeholder'), 'Unchanged');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('The webhook was saved.').waitFor();
    await page.getByLabel('Event', { exact: true }).selectOption('agent.created');
    await page.getByRole('button', { name: 'Send test' }).click();
    const [sent] = await receiver.waitFor(1, 10_000, (r) => r.path === '/gateway');
    assert.equal(sent.headers['x-api-key'], 'key-from-the-page');
    await page.getByRole('row').filter({ hasText: 'agent.created' }).first().getByText('succeeded').waitFor();
    assert.deepEqual((page as Page & { problems: string[] }).problems, []);
    await context.close();
  });

  it('makes an Ed25519 webhook from the form and shows the public key its deliveries verify with', async () => {
    const { context, page } = await newPage();
    await signIn(page);
    await page.getByRole('button', { name: 'New webhook' }).click();
    const dialog = page.getByRole('dialog', { name: 'New webhook' });
    await dialog.getByLabel('Title', { exact: true }).fill('Keyed hook');
    await dialog.getByLabel('URL', { exact: true }).fill(`${receiver.url}/keyed`);
    await dialog.getByRole('checkbox', { name: 'agent.created' }).check();
    await dialog.getByLabel('Signatures').selectOption('v1a');
    await dialog.getByRole('button', { name: 'Create webhook' }).click();
    await page
      .getByRole('dialog', { name: /Webhook #\d+ created/ })
      .getByRole('link', { name: 'Open the webhook' })
      .click();
    const shown = await page.locator('code.public-key').innerText();
    const [row] = await app.sql("SELECT public_key FROM webhooks WHERE title = 'Keyed hook'");
    assert.equal(shown, row.public_key);
    assert.match(shown, /^whpk_/);
    await page.getByLabel('Event', { exact: true }).selectOption('agent.created');
    await page.getByRole('button', { name: 'Send test' }).click();
    const [sent] = await receiver.waitFor(1, 10_000, (r) => r.path === '/keyed');
    const key = createPublicKey({
      key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), Buffer.from(shown.slice(5), 'base64')]),
      format: 'der',
      type: 'spki',
    });
    const [version, signature] = String(sent.headers['webhook-signature']).split(',');
    assert.equal(version, 'v1a');
    const signed = `${sent.headers['webhook-id']}.${sent.headers['webhook-timestamp']}.${sent.body}`;
    assert.equal(verify(null, Buffer.from(signed), key, Buffer.from(signature, 'base64')), true);
    assert.deepEqual((page as Page & { problems: string[] }).problems, []);
    await context.close();
  });

  it('sets a payload filter in the form, tried on the example first; an event it turns away is listed as filtered, not delivered', async () => {
    const { context, page } = await newPage();
    await signIn(page);
    await page.getByRole('button', { name: 'New webhook' }).click();
    const dialog = page.getByRole('dialog', { name: 'New webhook' });
    await dialog.getByLabel('Title', { exact: true }).fill('Filtered hook');
    await dialog.getByLabel('URL', { exact: true }).fill(`${receiver.url}/filtered`);
    assert.equal(await dialog.getByRole('button', { name: 'Add filter' }).isDisabled(), true, 'no event to filter yet');
    await dialog.getByRole('checkbox', { name: 'agent.created' }).check();
    await dialog.getByRole('button', { name: 'Add filter' }).click();
    assert.equal(await dialog.getByLabel('Filter 1 event').inputValue(), 'agent_created');
    await dialog.getByLabel('Filter 1 (JSON)').fill('{ "path": "nmae", "eq": "Keep Kim" }');
    await dialog.getByRole('button', { name: 'Test against the example' }).click();
    await dialog.getByText(/The path nmae is not in the data of agent\.created/).waitFor();
    await dialog.getByLabel('Filter 1 (JSON)').fill('{ "path": "name", "eq": "Ava" }');
    await dialog.getByRole('button', { name: 'Test against the example' }).click();
    await dialog.getByText('The example agent.created payload passes: it would be delivered.').waitFor();
    await dialog.getByLabel('Filter 1 (JSON)').fill('{ "path": "name", "eq": "Keep Kim" }');
    await dialog.getByRole('button', { name: 'Test against the example' }).click();
    await dialog.getByText('The example agent.created payload is turned away: it would not be delivered.').waitFor();
    await noSerious(page, 'the form with a filter');
    await dialog.getByRole('button', { name: 'Create webhook' }).click();
    const createdDialog = page.getByRole('dialog', { name: /Webhook #\d+ created/ });
    await createdDialog.getByRole('link', { name: 'Open the webhook' }).click();
    const [row] = await app.sql("SELECT id, filters FROM webhooks WHERE title = 'Filtered hook'");
    assert.deepEqual(row.filters, { 'agent.created': { path: 'name', eq: 'Keep Kim' } });
    await page.getByRole('heading', { name: 'Filtered (0)' }).waitFor();

    const token = await app.login('owner@acme.test');
    await app.graphql('mutation { a: createAgent(name: "Skip Sam") { id } }', {}, token);
    await app.graphql('mutation { b: createAgent(name: "Keep Kim") { id } }', {}, token);
    const [delivered] = await receiver.waitFor(1, 10_000, (r) => r.path === '/filtered');
    assert.equal(JSON.parse(delivered.body).data.name, 'Keep Kim');
    await page.reload();
    const panel = page.getByRole('region', { name: 'Filtered (1)' });
    await panel.getByRole('cell', { name: 'agent.created' }).waitFor();
    const [event] = await app.sql('SELECT id FROM events WHERE $1 = ANY(filtered_by)', [row.id]);
    await panel.getByRole('button', { name: `Show data of event ${event.id}` }).click();
    await panel.getByText('"name": "Skip Sam"').waitFor();
    await noSerious(page, 'the filtered events');
    assert.equal(receiver.received.filter((r) => r.path === '/filtered').length, 1);
    assert.deepEqual((page as Page & { problems: string[] }).problems, []);
    await context.close();
  });

  it('counts the events a webhook never received, then replays them on confirmation', async () => {
    const token = await app.login('owner@acme.test');
    const hook = (
      await app.request('POST', '/api/webhooks', {
        token,
        body: { title: 'Replay hook', url: `${receiver.url}/replayed`, events: ['agent.created'], active: false },
      })
    ).body.data;
    await app.graphql('mutation { a: createAgent(name: "Missed Mia") { id } }', {}, token);
    await app.graphql('mutation { b: createAgent(name: "Missed Max") { id } }', {}, token);
    const { context, page } = await newPage();
    await signIn(page);
    await page.goto(`${app.url}/#/setup/webhooks/${hook.id}`);
    const panel = page.getByRole('region', { name: 'Replay missing events' });
    await panel.getByLabel('Missing in').selectOption('1');
    await panel.getByRole('button', { name: 'Count missing events' }).click();
    await panel.getByText(/^\d+ events in the last hour were never sent to this webhook\.$/).waitFor();
    assert.equal(
      await panel.getByRole('button', { name: /^Replay \d+ events$/ }).isDisabled(),
      true,
      'inactive: nothing to replay to',
    );
    await page.getByRole('button', { name: 'Activate', exact: true }).click();
    await page.getByText('The webhook is active: new events are delivered to its URL.').waitFor();
    await panel.getByRole('button', { name: 'Count missing events' }).click();
    const [{ n }] = await app.sql(
      'SELECT count(*)::int AS n FROM events WHERE company_id = (SELECT company_id FROM webhooks WHERE id ' +
        "= $1) AND type = 'agent.created' AND occurred_at > now() - interval '1 hour'",
      [hook.id],
    );
    await panel.getByText(`${n} events in the last hour were never sent to this webhook.`).waitFor();
    await noSerious(page, 'the replay panel');
    await panel.getByRole('button', { name: `Replay ${n} events` }).click();
    await panel.getByText(`${n} events are being sent.`).waitFor();
    const got = await receiver.waitFor(n, 10_000, (r) => r.path === '/replayed');
    assert.ok(
      got.some((r) => JSON.parse(r.body).data.name === 'Missed Mia') &&
        got.some((r) => JSON.parse(r.body).data.name === 'Missed Max'),
    );
    await panel.getByRole('button', { name: 'Count missing events' }).click();
    await panel.getByText('Nothing is missing in the last hour.').waitFor();
    assert.deepEqual((page as Page & { problems: string[] }).problems, []);
    await context.close();
  });

  it("finds an agent's deliveries across webhooks, and resends one from there", async () => {
    const token = await app.login('owner@acme.test');
    const hook = await app.graphql(
      'mutation($input: CreateWebhookInput!) { createWebhook(input: $input) { webhook { id } } }',
      { input: { title: 'Subject hook', url: `${receiver.url}/subject`, events: ['agent_created'] } },
      token,
    );
    const agent = await app.graphql('mutation { createAgent(name: "Findable Fay") { id } }', {}, token);
    const agentId = String(agent.body.data.createAgent.id);
    const [first] = await receiver.waitFor(1, 10_000, (r) => r.path === '/subject');
    const deliveryId = String(first.headers['webhook-id']);
    const { context, page } = await newPage();
    await signIn(page);
    const panel = page.getByRole('region', { name: 'Find deliveries' });
    await panel.getByLabel('About a').selectOption('agentId');
    await panel.getByLabel('Agent id').fill('seven');
    await panel.getByRole('button', { name: 'Find' }).click();
    await panel.getByText('The agent id field must be a numeric id.').waitFor();
    await panel.getByLabel('Agent id').fill(agentId);
    await panel.getByRole('button', { name: 'Find' }).click();
    const row = panel
      .getByRole('row')
      .filter({ has: page.getByRole('link', { name: `#${hook.body.data.createWebhook.webhook.id}`, exact: true }) });
    await row.getByText('agent.created').waitFor();
    await row.getByText('succeeded').waitFor();
    await noSerious(page, 'the deliveries found by subject');
    await row.getByRole('button', { name: `Resend delivery ${deliveryId}` }).click();
    await panel.getByText(`Delivery ${deliveryId} is being sent again.`).waitFor();
    await receiver.waitFor(2, 10_000, (r) => r.headers['webhook-id'] === deliveryId);
    assert.deepEqual((page as Page & { problems: string[] }).problems, []);
    await context.close();
  });

  it('shows why a webhook was switched off and activates it again', async () => {
    const [hook] = await app.sql(
      'INSERT INTO webhooks (company_id, title, url, method, list_selection, form_data, events, active, ' +
        "disabled_reason, secret_sealed, created_at, updated_at) SELECT company_id, 'Gone hook', $1, 'POST', " +
        "list_selection, form_data, events, false, 'gone', secret_sealed, now(), now() FROM webhooks WHERE " +
        "title = 'CRM sync (example)' RETURNING id",
      [`${receiver.url}/gone`],
    );
    const { context, page } = await newPage();
    await signIn(page);
    await page.getByRole('row').filter({ hasText: 'Gone hook' }).getByText('Switched off (gone)').waitFor();
    await page.getByRole('link', { name: 'Gone hook' }).click();
    await page.getByText('because its URL answered 410 Gone').waitFor();
    await page.getByRole('button', { name: 'Activate again' }).click();
    await page.getByText('The webhook is active').waitFor();
    const [now] = await app.sql('SELECT active, disabled_reason FROM webhooks WHERE id = $1', [hook.id]);
    assert.deepEqual(now, { active: true, disabled_reason: null });
    await context.close();
  });

  it('shows operator notices on the list and on the webhook they are about', async () => {
    const failing = await new Receiver().start();
    failing.answer = (request) => ({ status: request.path === '/gone' ? 410 : 500 });
    try {
      const token = await app.login('owner@acme.test');
      const create = async (title: string, path: string) =>
        (
          await app.request('POST', '/api/webhooks', {
            token,
            body: { title, url: `${failing.url}${path}`, events: ['agent.created'] },
          })
        ).body.data.id as number;
      const goneId = await create('Notice gone', '/gone');
      const slowId = await create('Notice failing', '/failing');
      await app.sql("UPDATE webhooks SET failing_since = now() - interval '3 days' WHERE id = $1", [slowId]);
      await app.graphql('mutation { createAgent(name: "Noticed") { id } }', {}, token);
      await eventually(
        async () =>
          (
            await app.sql(
              "SELECT count(*)::int AS n FROM events WHERE type IN ('webhook.disabled', 'webhook.failing') AND ($1 = ANY(subjects) OR $2 = ANY(subjects))",
              [`webhook:${goneId}`, `webhook:${slowId}`],
            )
          )[0].n === 2
            ? true
            : undefined,
        10_000,
        'both notices',
      );

      const { context, page } = await newPage();
      await signIn(page);
      const notices = page.getByRole('region', { name: /^Notices \(\d+\)$/ });
      await notices
        .getByText('"Notice gone" was switched off: its endpoint answered 410 Gone.', { exact: false })
        .waitFor();
      await notices
        .getByText(/"Notice failing" has failed since .* \(50 % of the time allowed; last time it answered 500\)/)
        .waitFor();
      await noSerious(page, 'the list with notices');
      await page.getByRole('link', { name: 'Notice gone' }).click();
      const own = page.getByRole('region', { name: 'Notices (1)' });
      await own.getByText('This webhook was switched off: its endpoint answered 410 Gone.', { exact: false }).waitFor();
      assert.equal(await own.getByText('Notice failing').count(), 0, "only this webhook's notices");
      // A notice ends when what it reports no longer holds: switched off by hand, the failing one is no longer failing.
      await app.request('PUT', `/api/webhooks/${slowId}`, { token, body: { active: false } });
      await page.getByRole('link', { name: '‹ All webhooks' }).click();
      await notices.getByText('"Notice gone" was switched off', { exact: false }).waitFor();
      assert.equal(await notices.getByText('"Notice failing" has failed since', { exact: false }).count(), 0);
      await context.close();
    } finally {
      await failing.close();
    }
  });

  it('follows a call in progress and its transcript as it grows (Calls > Live calls)', async () => {
    const account = await app.providerAccount();
    const [{ phone_no: ours }] = await app.sql(
      'SELECT phone_no FROM phone_numbers WHERE company_id = $1 ORDER BY id LIMIT 1',
      [account.companyId],
    );
    const call = {
      AccountSid: account.sid,
      CallSid: `CA${randomBytes(16).toString('hex')}`,
      From: '+14155550143',
      To: ours,
      Direction: 'inbound',
    };
    const callback = async (kind: string, params: Record<string, string>) =>
      assert.equal((await postCallback(app.url, account.authToken, `/api/telco/voice/${kind}`, params)).status, 204);
    for (const status of ['initiated', 'in-progress']) await callback('status', { ...call, CallStatus: status });
    await callback('transcript', { ...call, Sequence: '0', Speaker: 'agent', Text: 'Hello, this is Ava.' });

    const { context, page } = await newPage();
    await signIn(page);
    await page.getByRole('link', { name: 'Live calls' }).click();
    await page.getByRole('heading', { name: 'Live calls', level: 1 }).waitFor();
    const row = page.getByRole('row').filter({ hasText: '+14155550143' });
    await row.getByRole('button', { name: /^Follow the transcript of call \d+$/ }).click();
    const transcript = page.getByRole('region', { name: /^Transcript of call \d+$/ });
    await transcript.getByText('Hello, this is Ava.').waitFor();
    // Said after the page opened: it arrives over the subscription, in order.
    await callback('transcript', { ...call, Sequence: '1', Speaker: 'caller', Text: 'I would like a cleaning.' });
    await callback('transcript', { ...call, Sequence: '2', Speaker: 'agent', Text: 'Tuesday at 3 pm works.' });
    await transcript.getByText('Tuesday at 3 pm works.').waitFor();
    assert.deepEqual(await transcript.getByRole('listitem').allInnerTexts(), [
      'Agent: Hello, this is Ava.',
      'Caller: I would like a cleaning.',
      'Agent: Tuesday at 3 pm works.',
    ]);
    await noSerious(page, 'live calls with a transcript');
    // Once the call ends it leaves the list by itself.
    await callback('status', { ...call, CallStatus: 'completed', CallDuration: '40' });
    await row.waitFor({ state: 'detached', timeout: 10_000 });
    await context.close();
  });

  it('adds a decision endpoint under Setup > Call routing; the call it routes shows who decided (Calls > Live calls)', async () => {
    const decider = await new Receiver().start();
    try {
      const { context, page } = await newPage();
      await signIn(page);
      await page.getByRole('link', { name: 'Call routing' }).click();
      await page.getByRole('heading', { name: 'Call routing', level: 1 }).waitFor();
      await page.getByText("No decision endpoint: the number's AI agent answers.").waitFor();
      await page.getByRole('button', { name: 'Add decision endpoint' }).click();
      const dialog = page.getByRole('dialog', { name: 'Add decision endpoint' });
      // A bad value is named under its field, and nothing is saved.
      await dialog.getByLabel('URL').fill(`${decider.url}/route`);
      await dialog.getByLabel('Deadline (ms, 100 to 5000)').fill('50');
      await dialog.getByLabel('Fallback', { exact: true }).selectOption('forward');
      await dialog.getByLabel('Forward to (E.164)').fill('+12125550142');
      await dialog.getByRole('button', { name: 'Add endpoint' }).click();
      await dialog
        .getByText(/deadline ms field must be a whole number of milliseconds from 100 to 5000 \(got 50\)/)
        .waitFor();
      assert.equal((await app.sql('SELECT count(*)::int AS n FROM decision_endpoints'))[0].n, 0);
      await noSerious(page, 'the decision endpoint form with an error');
      await dialog.getByLabel('Deadline (ms, 100 to 5000)').fill('800');
      await dialog.getByRole('button', { name: 'Add endpoint' }).click();
      await page.getByText('The decision endpoint was added.').waitFor();
      const secret = await page.getByLabel('Signing secret').inputValue();
      assert.match(secret, /^whsec_/);
      const row = page.getByRole('row').filter({ hasText: `${decider.url}/route` });
      await row.getByText('Forward to +12125550142').waitFor();
      await row.getByText('Closed: asked').waitFor();
      await noSerious(page, 'Setup > Call routing');

      // A call the endpoint routes: the page says who decided and what.
      decider.answer = () => ({
        status: 200,
        body: JSON.stringify({ action: 'answer', variables: { first_name: 'Ada' } }),
      });
      const account = await app.providerAccount();
      const [{ phone_no: ours }] = await app.sql(
        'SELECT phone_no FROM phone_numbers WHERE company_id = $1 ORDER BY id LIMIT 1',
        [account.companyId],
      );
      const call = {
        AccountSid: account.sid,
        CallSid: `CA${randomBytes(16).toString('hex')}`,
        From: '+14155550144',
        To: ours,
      };
      const asked = await postCallback(app.url, account.authToken, '/api/telco/voice/inbound', call);
      assert.equal(asked.status, 200);
      const [request] = decider.received.filter((r) => r.body.includes('call.inbound'));
      new StandardWebhook(secret).verify(request.body, request.headers as Record<string, string>);
      await page.getByRole('link', { name: 'Live calls' }).click();
      const live = page.getByRole('row').filter({ hasText: '+14155550144' });
      await live.getByText(/^Your endpoint: answer \(\d+ ms\)$/).waitFor();
      await noSerious(page, 'live calls with a routed call');
      await context.close();
    } finally {
      await decider.close();
    }
  });

  it('tells a user without view-webhooks why the page is empty, and hides changes from a viewer', async () => {
    const { context, page } = await newPage();
    const token = await app.userWith(['view-role'], 'no webhooks');
    await page.addInitScript((t) => sessionStorage.setItem('switchboard.token', t), token);
    await page.goto(`${app.url}/#/setup/webhooks`);
    await page.getByText(/does not include the “view-webhooks” permission/).waitFor();
    await noSerious(page, 'the page without permission');

    await context.close();

    const viewer = await newPage();
    await viewer.page.addInitScript(
      (t) => sessionStorage.setItem('switchboard.token', t),
      await app.userWith(['view-webhooks'], 'viewer'),
    );
    await viewer.page.goto(`${app.url}/`);
    await viewer.page.getByRole('row').filter({ hasText: 'CRM sync' }).waitFor();
    assert.equal(await viewer.page.getByRole('button', { name: 'New webhook' }).count(), 0);
    assert.equal(await viewer.page.getByRole('button', { name: /^Delete/ }).count(), 0);
    await viewer.context.close();
  });

  it('searches and pages the webhook list', async () => {
    await app.sql(
      `INSERT INTO webhooks (company_id, title, url, method, list_selection, form_data, events, active, secret_sealed, created_at, updated_at)
       SELECT w.company_id, 'Bulk ' || n, 'https://bulk' || n || '.example/hook', 'POST', w.list_selection,
         w.form_data, w.events, true, w.secret_sealed, now() - n * interval '1 minute', now()
       FROM webhooks w, generate_series(1, 16) AS n WHERE w.title = 'CRM sync (example)'`,
    );
    const [{ total }] = await app.sql(
      "SELECT count(*)::int AS total FROM webhooks w JOIN companies c ON c.id = w.company_id WHERE c.name = 'Acme Agency'",
    );
    const { context, page } = await newPage();
    await signIn(page);
    await page.getByText(`1–15 of ${total}`).waitFor();
    assert.equal(await page.getByRole('row').count(), 16, 'a header and 15 webhooks');
    await page.getByRole('navigation', { name: 'Webhooks pages' }).getByRole('button', { name: 'Next' }).click();
    await page.getByText(`16–${total} of ${total}`).waitFor();
    assert.equal(await page.getByRole('row').count(), 1 + total - 15);
    await page.getByLabel('Search webhooks').fill('bulk7.example');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('navigation', { name: 'Webhooks pages' }).getByText('1–1 of 1').waitFor();
    assert.match(await page.getByRole('row').nth(1).innerText(), /Bulk 7/);
    await page.getByLabel('Search webhooks').fill('no such hook');
    await page.getByLabel('Search webhooks').press('Enter');
    await page.getByText('No webhook matches “no such hook”.').waitFor();
    await app.sql("DELETE FROM webhooks WHERE title LIKE 'Bulk %'");
    await context.close();
  });

  it('opens the GraphQL explorer from local assets with the signed-in token set', async () => {
    const html = await app.request('GET', '/graphql', { headers: { accept: 'text/html' } });
    assert.equal(html.status, 200);
    assert.match(html.text, /<script type="module" src="\/assets\/explorer\.js\?v=[0-9a-f]{12}">/);
    assert.match(html.headers.get('content-security-policy') ?? '', /script-src 'self';/);
    // A GET that carries a query is still GraphQL.
    const get = await app.request('GET', '/graphql?query=%7B__typename%7D', {
      headers: { accept: 'application/json', 'apollo-require-preflight': 'true' },
    });
    assert.deepEqual(get.body, { data: { __typename: 'Query' } });

    const { context, page: app_ } = await newPage();
    await signIn(app_);
    // The explorer opens in a tab of its own, signed in as the app's tab is; the app stays where it was.
    const link = app_.getByRole('link', { name: 'GraphQL explorer (opens in a new tab)' });
    const [page] = await Promise.all([context.waitForEvent('page'), link.click()]);
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on(
      'response',
      (response) => response.status() >= 400 && problems.push(`${response.status()} ${response.url()}`),
    );
    await page.waitForURL(`${app.url}/graphql`);
    assert.doesNotMatch(app_.url(), /\/graphql/);
    const run = page.getByRole('button', { name: /Execute query/ });
    await run.waitFor();
    await page
      .getByText(/"Authorization": "Bearer ey/)
      .first()
      .waitFor();
    await run.click();
    // The document holds two operations: GraphiQL asks which one to run.
    const choice = page.getByRole('menuitem', { name: 'Me' });
    if (await choice.count()) await choice.click();
    await page.locator('.graphiql-response').getByText('"Acme Agency"').waitFor();
    assert.deepEqual(problems, [], 'every request of the explorer answered, its icon included');
    assert.deepEqual((app_ as Page & { problems: string[] }).problems, []);
    // Nothing of the explorer's (tabs, history, headers) outlives the tab: no token in persistent storage.
    const stored = await page.evaluate(() => ({
      local: JSON.stringify({ ...localStorage }),
      session: JSON.stringify({ ...sessionStorage }),
    }));
    assert.doesNotMatch(stored.local, /Bearer|ey[A-Za-z0-9_-]{10,}\./, 'localStorage holds no token');
    assert.match(stored.session, /graphiql/, 'GraphiQL keeps its state in the tab');
    // And a link leads back to the app; signing out there forgets the token everywhere in the tab, the explorer's headers too.
    await page.getByRole('link', { name: '‹ Back to Switchboard' }).click();
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Switchboard' }).waitFor();
    const left = await page.evaluate(() => JSON.stringify({ ...sessionStorage }));
    assert.doesNotMatch(left, /Bearer|ey[A-Za-z0-9_-]{10,}\./, 'no token left in the tab after signing out');
    await context.close();
  });

  it('serves the REST docs and the explorer under a policy, and neither can be framed by another origin', async () => {
    for (const path of ['/api/docs', '/graphql']) {
      const res = await app.request('GET', path, { headers: { accept: 'text/html' } });
      assert.match(
        res.headers.get('content-security-policy') ?? '',
        /script-src 'self';.*frame-ancestors 'none'/,
        path,
      );
      assert.equal(res.headers.get('x-frame-options'), 'DENY', path);
    }
    const { context, page } = await newPage();
    const failed: string[] = [];
    page.on(
      'response',
      (response) => response.status() >= 400 && failed.push(`${response.status()} ${response.url()}`),
    );
    await page.goto(`${app.url}/api/docs`);
    await page.getByText('Switchboard').first().waitFor();
    await page.locator('.opblock').first().waitFor();
    assert.deepEqual((page as Page & { problems: string[] }).problems, [], 'Swagger UI runs under the policy');
    assert.deepEqual(failed, [], 'every request of the docs page answered, its icon included');
    assert.equal(
      await page.evaluate(() => document.querySelector('link[rel="icon"]')?.getAttribute('href')),
      '/favicon.svg',
    );
    // Another origin (the receiver's port) frames both pages: the browser refuses to render them.
    const frames = `<!doctype html><iframe id="docs" src="${app.url}/api/docs"></iframe><iframe id="explorer" src="${app.url}/graphql"></iframe>`;
    await page.route(`${receiver.url}/framer`, (route) =>
      route.fulfill({ status: 200, contentType: 'text/html', body: frames }),
    );
    (page as Page & { problems: string[] }).problems.length = 0;
    await page.goto(`${receiver.url}/framer`);
    await page.waitForTimeout(500);
    for (const id of ['docs', 'explorer']) {
      const frame = await (await page.$(`#${id}`))!.contentFrame();
      const body = await frame!.evaluate(() => document.body?.innerText ?? '').catch(() => '');
      assert.doesNotMatch(body, /Switchboard|GraphiQL|Execute/, `${id} rendered inside another origin's frame`);
    }
    await context.close();
  });

  it('works at 375 px wide and with the keyboard alone', async () => {
    const { context, page } = await newPage({ width: 375, height: 812 });
    await page.goto(`${app.url}/`);
    // Keyboard only: Tab to each field, type, Enter to submit.
    await page.keyboard.press('Tab');
    await page.keyboard.type('owner@acme.test');
    await page.keyboard.press('Tab');
    await page.keyboard.type(DEMO_PASSWORD);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    await page.getByRole('row').filter({ hasText: 'CRM sync' }).waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow} px at 375 px`);
    await noSerious(page, 'the list at 375 px');

    // The New webhook button is reached by Tab and opened with Enter; Escape closes and focus returns.
    const newButton = page.getByRole('button', { name: 'New webhook' });
    await newButton.focus();
    const outline = await newButton.evaluate((el) => getComputedStyle(el).outlineStyle);
    assert.notEqual(outline, 'none', 'focus is visible');
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: 'New webhook' }).getByLabel('Title').waitFor();
    assert.equal(
      await page.evaluate(() => document.activeElement?.closest('dialog') !== null),
      true,
      'focus moves into the dialog',
    );
    const dialogOverflow = await page.evaluate(
      () => document.querySelector('dialog')!.scrollWidth - document.querySelector('dialog')!.clientWidth,
    );
    assert.ok(dialogOverflow <= 0, 'the form fits at 375 px');
    assert.deepEqual(await spilled(page), [], 'nothing spills out of its box at 375 px');
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await page.waitForFunction(() => document.activeElement?.textContent === 'New webhook', undefined, {
      timeout: 5000,
    });

    if (process.env.UPDATE_SCREENSHOTS) {
      mkdirSync('docs/images', { recursive: true });
      await page.screenshot({ path: 'docs/images/setup-webhooks-mobile.png' });
    }
    await context.close();
  });

  it('takes the README screenshot of Setup > Webhooks when asked (UPDATE_SCREENSHOTS=1)', {
    skip: !process.env.UPDATE_SCREENSHOTS,
  }, async () => {
    const { context, page } = await newPage({ width: 1280, height: 800 });
    await signIn(page);
    mkdirSync('docs/images', { recursive: true });
    // Each webhook's last day at a glance loads after the list.
    await page
      .getByText(/% of \d+ succeeded/)
      .first()
      .waitFor();
    await page.screenshot({ path: 'docs/images/setup-webhooks.png' });
    const [hook] = await app.sql("SELECT id FROM webhooks WHERE title = 'Gone hook'");
    await page.goto(`${app.url}/#/setup/webhooks/${hook.id}`);
    await page.getByRole('heading', { name: /Gone hook/ }).waitFor();
    await page.getByRole('button', { name: 'Send test' }).click();
    await eventually(async () => ((await page.getByText(/succeeded, HTTP 200/).count()) > 0 ? true : undefined));
    await page
      .getByRole('button', { name: /Details of delivery/ })
      .first()
      .click();
    await page.screenshot({ path: 'docs/images/webhook-deliveries.png', fullPage: true });
    await context.close();
  });
});
