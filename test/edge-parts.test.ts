import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { chain, frontDoor } from '../src/http/edge.js';
import { type CompiledRoute, routeOrder } from '../src/rest/compile.js';
import { TickBatch } from '../src/webhooks/engine/tick-batch.js';
import { SharedBudgets } from '../src/limits/budgets.js';
import pg from 'pg';
import { adminQuery, createDatabase, databaseUrl } from './helpers/app.js';

// The hand-written parts that stay in the place of a library's (docs/architecture.md), each tested on its own:
// the chain of handlers and the front door (in the place of Express's router for the APIs), the REST route
// matcher, the batcher of the delivery engine, and the rate limits' shared budgets.

describe('chain: handlers run one after another as one', () => {
  /** Runs the chain of `handlers`, each recorded as it starts (h0, h1, ...); resolves when the chain passes on. */
  const run = (handlers: RequestHandler[]) =>
    new Promise<{ order: string[]; error?: unknown }>((resolve) => {
      const order: string[] = [];
      const recorded = handlers.map(
        (handler, i): RequestHandler =>
          (req, res, next) => {
            order.push(`h${i}`);
            return handler(req, res, next);
          },
      );
      chain(recorded)({} as Request, {} as Response, (error?: unknown) => resolve({ order, error }));
    });

  it('runs each in order and passes on after the last', async () => {
    const calls: string[] = [];
    const pass =
      (name: string): RequestHandler =>
      (_req, _res, next) => (calls.push(name), next());
    assert.deepEqual(await run([pass('a'), pass('b'), pass('c')]), { order: ['h0', 'h1', 'h2'], error: undefined });
    assert.deepEqual(calls, ['a', 'b', 'c']);
  });

  it('stops at an error passed, thrown or rejected, and hands it on', async () => {
    const boom = new Error('boom');
    const pass: RequestHandler = (_req, _res, next) => next();
    const never: RequestHandler = () => assert.fail('ran after an error');
    assert.deepEqual(await run([pass, (_q, _s, next) => next(boom), never]), { order: ['h0', 'h1'], error: boom });
    const thrown = await run([
      () => {
        throw boom;
      },
      never,
    ]);
    assert.equal(thrown.error, boom);
    const rejected = await run([async () => Promise.reject(boom), never]);
    assert.equal(rejected.error, boom);
  });

  it('an answer without next() ends the chain', async () => {
    const answered: RequestHandler = () => undefined;
    const result = await Promise.race([
      run([answered, () => assert.fail('ran after an answer')]),
      new Promise((resolve) => setTimeout(() => resolve('ended'), 50)),
    ]);
    assert.equal(result, 'ended');
  });
});

describe('the front door: API requests straight to their handlers, the rest to the Express app', () => {
  let server: Server;
  let url: string;
  const seenByApp: string[] = [];

  before(async () => {
    const app = express();
    const front: RequestHandler = (req, res, next) => {
      if (req.path === '/api/answered') return void res.json({ front: true, via: req.get('x-via') ?? null });
      if (req.path === '/api/fails') return next(new Error('front failed'));
      next(); // not one of its own: on into the app
    };
    const door = frontDoor(app, front, (path) => path.startsWith('/api/'));
    app.use(door.layer);
    app.use((req, _res, next) => (seenByApp.push(req.path), next()));
    app.get('/api/passed', (_req, res) => void res.json({ app: true }));
    app.get('/page', (_req, res) => void res.type('text').send('page'));
    app.use(
      (error: Error, _req: Request, res: Response, _next: NextFunction) =>
        void res.status(500).json({ error: error.message }),
    );
    server = createServer(door.listener);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('answers an API request in front of the app, with Express request and response methods', async () => {
    const res = await fetch(`${url}/api/answered`, { headers: { 'x-via': 'test' } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    assert.deepEqual(await res.json(), { front: true, via: 'test' });
    assert.ok(!seenByApp.includes('/api/answered'), 'the app never saw it');
  });

  it('hands on what it does not answer, and its errors, to the app', async () => {
    assert.deepEqual(await (await fetch(`${url}/api/passed`)).json(), { app: true });
    const failed = await fetch(`${url}/api/fails`);
    assert.equal(failed.status, 500);
    assert.deepEqual(await failed.json(), { error: 'front failed' });
  });

  it('sends every other request to the app as it is', async () => {
    const page = await fetch(`${url}/page`);
    assert.equal(await page.text(), 'page');
    assert.ok(seenByApp.includes('/page'));
  });
});

describe("the REST rows' order on Express's router", () => {
  const row = (method: string, path: string): CompiledRoute =>
    ({ method, path, route: { operationId: `${method} ${path}` } }) as never;

  it('puts a literal segment before a parameter at the first level where two paths differ, and groups methods', () => {
    const order = routeOrder([
      row('GET', '/api/webhooks/{id}'),
      row('GET', '/api/webhooks/{id}/deliveries'),
      row('PUT', '/api/webhooks/{id}'),
      row('GET', '/api/webhooks'),
      row('GET', '/api/webhooks/notices'),
      row('POST', '/api/webhooks'),
      row('GET', '/api/webhooks/{id}/deliveries/{delivery}'),
      row('POST', '/api/webhooks/{id}/deliveries/resend'),
    ]);
    const paths = order.map((entry) => entry.path);
    const before = (a: string, b: string) => assert.ok(paths.indexOf(a) < paths.indexOf(b), `${a} before ${b}`);
    before('/api/webhooks/notices', '/api/webhooks/{id}');
    before('/api/webhooks/notices', '/api/webhooks/{id}/deliveries');
    before('/api/webhooks/{id}/deliveries/resend', '/api/webhooks/{id}/deliveries/{delivery}');
    assert.deepEqual(
      order.find((entry) => entry.path === '/api/webhooks/{id}')!.rows.map((r) => r.method),
      ['GET', 'PUT'],
    );
    assert.equal(paths.length, 6);
  });

  it("refuses a table where two rows take one method and path, or name one path's parameters otherwise", () => {
    assert.throws(() => routeOrder([row('GET', '/a'), row('GET', '/a')]), /GET \/a is taken/);
    assert.throws(() => routeOrder([row('GET', '/a/{id}'), row('GET', '/a/{key}')]), /GET \/a\/\{key\} is taken/);
    assert.throws(
      () => routeOrder([row('GET', '/a/{id}'), row('PUT', '/a/{key}')]),
      /\/a\/\{key\} names its parameters unlike \/a\/\{id\}/,
    );
  });
});

describe('TickBatch: what is added during one turn of the event loop is handled together', () => {
  it('handles one turn as one batch, at most `max` at a time, in order', async () => {
    const batches: number[][] = [];
    const batch = new TickBatch<number, number>(3, async (items) => (batches.push(items), items.map((n) => n * 10)));
    const answers = await Promise.all([1, 2, 3, 4, 5].map((n) => batch.add(n)));
    assert.deepEqual(answers, [10, 20, 30, 40, 50]);
    assert.deepEqual(batches, [
      [1, 2, 3],
      [4, 5],
    ]);
    assert.equal(await batch.add(6), 60);
    assert.deepEqual(batches.at(-1), [6], 'a later turn is a batch of its own');
  });

  it('rejects every item of a batch whose handling failed, and handles the next batch', async () => {
    let calls = 0;
    const batch = new TickBatch<string, string>(2, async (items) => {
      calls++;
      if (calls === 1) throw new Error('database down');
      return items.map((item) => item.toUpperCase());
    });
    const results = await Promise.allSettled(['a', 'b', 'c'].map((item) => batch.add(item)));
    assert.deepEqual(
      results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message)),
      ['database down', 'database down', 'C'],
    );
  });
});

describe('TickBatch held while more items are on their way', () => {
  /** A batch whose handled batches are kept, held `ms` while `more` says so; urgent items are negative numbers. */
  const held = (ms: number, more: () => boolean) => {
    const batches: number[][] = [];
    const batch = new TickBatch<number, number>(10, async (items) => (batches.push(items), items), {
      ms,
      more,
      urgent: (n) => n < 0,
    });
    return { batch, batches };
  };

  it('items added over a few turns go together while more are on their way, and at once when none are', async () => {
    let coming = 3;
    const { batch, batches } = held(1000, () => coming > 0);
    const started = Date.now();
    const added: Array<Promise<number>> = [];
    for (let i = 1; i <= 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      coming--;
      added.push(batch.add(i));
    }
    await Promise.all(added);
    assert.deepEqual(batches, [[1, 2, 3]]);
    assert.ok(Date.now() - started < 500, 'the last item ended the hold, not its time');
  });

  it('goes at the end of the hold when more stay on their way', async () => {
    const { batch, batches } = held(40, () => true);
    const started = Date.now();
    const first = batch.add(1);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await Promise.all([first, batch.add(2)]);
    assert.deepEqual(batches, [[1, 2]]);
    assert.ok(Date.now() - started >= 39, `went after ${Date.now() - started} ms`);
    const later = Date.now();
    await batch.add(3);
    assert.ok(Date.now() - later >= 39, 'the next batch is held again');
  });

  it('an urgent item, or a full batch, goes at the next turn with those waiting', async () => {
    const { batch, batches } = held(10_000, () => true);
    const started = Date.now();
    await Promise.all([batch.add(1), batch.add(-2)]);
    assert.deepEqual(batches, [[1, -2]]);
    const full = Array.from({ length: 10 }, (_, i) => batch.add(i + 10));
    await Promise.all(full);
    assert.equal(batches.at(-1)?.length, 10);
    assert.ok(Date.now() - started < 5000, 'neither waited for the hold');
  });
});

describe('SharedBudgets: a quota shared by processes through PostgreSQL', () => {
  let database: string;
  let pools: pg.Pool[] = [];
  before(async () => {
    database = await createDatabase({ fromTemplate: true }); // migrated: it has the api_budgets table
    pools = [0, 1, 2].map(() => new pg.Pool({ connectionString: databaseUrl(database), max: 2 }));
  });
  after(async () => {
    await Promise.all(pools.map((pool) => pool.end()));
    await adminQuery(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
  });

  it('three processes together never admit more than the quota, and lose at most their unspent leases', async () => {
    const quota = { max: 500, windowSeconds: 60 };
    const processes = pools.map((pool) => new SharedBudgets(pool));
    let admitted = 0;
    let refusedBy = 0;
    // Round robin, a point at a time, until every process is refused.
    for (let round = 0; refusedBy < processes.length && round < 2_000; round++) {
      refusedBy = 0;
      for (const budgets of processes) {
        const spent = await budgets.spend('company:1', quota, 1);
        if (spent.allowed) admitted++;
        else {
          refusedBy++;
          assert.ok(spent.resetSeconds >= 1 && spent.resetSeconds <= 60, String(spent.resetSeconds));
        }
      }
    }
    assert.equal(refusedBy, processes.length, 'every process is refused in the end');
    assert.ok(admitted <= quota.max, `admitted ${admitted} of ${quota.max}`);
    // A lease is a fiftieth of the quota; each process but the last may hold one unspent.
    assert.ok(admitted >= quota.max - (processes.length - 1) * (quota.max / 50), `admitted ${admitted}`);
    // Another key is a budget of its own.
    assert.equal((await processes[0].spend('company:2', quota, 5)).allowed, true);
  });

  it('refuses at once, without a statement, once its lease says the quota is spent; a refund is spent again', async () => {
    const quota = { max: 10, windowSeconds: 60 };
    const budgets = new SharedBudgets(pools[0]);
    for (let i = 0; i < 10; i++) assert.equal((await budgets.spend('token:a', quota, 1)).allowed, true);
    assert.equal((await budgets.spend('token:a', quota, 1)).allowed, false);
    assert.deepEqual(budgets.spendNow('token:a', quota, 1)?.allowed, false, 'decided by the lease in hand');
    budgets.refund('token:a', 1);
    assert.equal(budgets.spendNow('token:a', quota, 1)?.allowed, true);
  });
});
