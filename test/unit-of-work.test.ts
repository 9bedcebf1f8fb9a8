import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { toBase64Id } from '../src/kernel/ids.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import type { RequestContext } from '../src/context/request-context.js';
import { Notifier, TURN } from '../src/db/notifier.js';

// One transaction per operation, and every rule that two concurrent requests
// could break held by a constraint or a lock: checked in the database after
// firing the requests at once.

let app: TestApp;
let owner: string;
let acme: number;

before(async () => {
  app = await startTestApp();
  owner = await app.login('owner@acme.test');
  [{ id: acme }] = await app.sql("SELECT id FROM companies WHERE name = 'Acme Agency'");
});
after(() => app.close());

const together = <T>(n: number, make: (i: number) => Promise<T>) =>
  Promise.all(Array.from({ length: n }, (_, i) => make(i)));

const INSERT_ROLE =
  'INSERT INTO roles (company_id, title, is_owner, created_at, updated_at) VALUES ($1, $2, false, now(), now())';
/** A role inserted in a unit of work, then a failure: what the unit of work keeps of the statement. */
const insertRole = (ctx: RequestContext, title: string) => ctx.sql(INSERT_ROLE, [acme, title]);
const failAfter = (title: string) => async (ctx: RequestContext) => {
  await insertRole(ctx, title);
  throw new Error('after the statement');
};

describe('the unit of work', () => {
  it('a failed operation in a GraphQL batch leaves nothing behind, its siblings commit', async () => {
    const batch = [
      { query: 'mutation { createRole(input: { title: "Batch Good" }) { id } }' },
      { query: 'mutation { createRole(input: { title: "Batch Bad", permissions: [999999] }) { id } }' },
      { query: 'mutation { createPipeline(input: { name: "Batch pipeline" }) { id } }' },
    ];
    const res = await app.request('POST', '/graphql', { token: owner, body: batch });
    assert.equal(res.status, 200);
    assert.ok(res.body[0].data.createRole.id);
    assert.equal(res.body[1].errors[0].extensions.code, 'BAD_USER_INPUT');
    assert.ok(res.body[2].data.createPipeline.id);
    const titles = (await app.sql("SELECT title FROM roles WHERE title LIKE 'Batch %' ORDER BY title")).map(
      (r) => r.title,
    );
    assert.deepEqual(titles, ['Batch Good'], 'the refused role was not committed by a sibling');
    assert.equal((await app.sql("SELECT count(*)::int AS n FROM pipelines WHERE name = 'Batch pipeline'"))[0].n, 1);
  });

  it('a mutation that fails after writing rolls back what it wrote', async () => {
    // Two mutation fields in one document: each its own unit of work.
    const res = await app.graphql(
      `mutation {
      a: createWorkflowFolder(name: "Kept folder") { id }
      b: reorderWorkflowFolders(folderIds: ["${toBase64Id(999999)}"]) { id }
    }`,
      {},
      owner,
    );
    assert.ok(res.body.data === null || res.body.data?.a?.id, JSON.stringify(res.body));
    assert.equal((await app.sql("SELECT count(*)::int AS n FROM workflow_folders WHERE name = 'Kept folder'"))[0].n, 1);
    const orders = await app.sql('SELECT sort_order FROM workflow_folders WHERE company_id = $1 ORDER BY sort_order', [
      acme,
    ]);
    assert.deepEqual(
      orders.map((r) => r.sort_order),
      orders.map((_, i) => i + 1),
      'the failed reorder changed no order',
    );
  });

  it('the statements of one operation share one transaction', async () => {
    const [{ id }] = await app.sql('SELECT id FROM pipelines WHERE company_id = $1 ORDER BY id LIMIT 1', [acme]);
    const res = await app.request('POST', `/api/pipeline/${toBase64Id(id)}/stages`, {
      token: owner,
      body: { stage_name: 'Same transaction' },
    });
    assert.equal(res.status, 200, res.text);
    // The pipeline row is touched (its lock), the stage inserted: one writer transaction id.
    const [row] = await app.sql(
      'SELECT p.xmin::text AS pipeline_tx, s.xmin::text AS stage_tx FROM pipelines p JOIN pipeline_stages ' +
        "s ON s.pipeline_id = p.id WHERE p.id = $1 AND s.name = 'Same transaction'",
      [id],
    );
    assert.equal(row.pipeline_tx, row.stage_tx);
  });

  it('a statement of ctx.sql joins the unit of work it runs in, on any pool: a failure after it takes it back', async () => {
    const contexts = app.running.services.contexts;
    await assert.rejects(
      contexts.forSystem(acme, 'test').unitOfWork(failAfter('Taken back, reader'), { lane: 'reader' }),
      /after the statement/,
    );
    await assert.rejects(
      contexts.forSystem(acme, 'test').unitOfWork(failAfter('Taken back, writer')),
      /after the statement/,
    );
    // committed: the statement outlives the rollback of the operation around it.
    await assert.rejects(
      contexts.forSystem(acme, 'test').unitOfWork(async (ctx) => {
        await ctx.sql(
          'INSERT INTO roles (company_id, title, is_owner, created_at, updated_at) VALUES ($1, $2, false, now(), now())',
          [acme, 'Kept, committed'],
          { committed: true },
        );
        throw new Error('after the statement');
      }),
      /after the statement/,
    );
    const kept = await app.sql("SELECT title FROM roles WHERE title LIKE 'Taken back, %' OR title = 'Kept, committed'");
    assert.deepEqual(
      kept.map((r) => r.title),
      ['Kept, committed'],
    );
    // A placeholder used twice, in a transaction, is given twice.
    const [same] = await contexts
      .forSystem(acme, 'test')
      .unitOfWork((ctx) => ctx.sql<{ same: boolean }>('SELECT $1::int = $1::int + $2::int AS same', [7, 0]));
    assert.equal(same.same, true);
    const [role] = await app.sql(
      "INSERT INTO roles (company_id, title, is_owner, created_at, updated_at) VALUES ($1, 'Renamed in its unit', false, now(), now()) RETURNING id",
      [acme],
    );
    const renamed = await app.request('PUT', `/api/roles/${role.id}`, {
      token: owner,
      body: { title: 'Renamed in its unit, done' },
    });
    assert.equal(renamed.status, 200);
    assert.equal(
      (await app.sql('SELECT title FROM roles WHERE id = $1', [role.id]))[0].title,
      'Renamed in its unit, done',
    );
  });

  it('a unit of work of one statement: the statement is its transaction, and a second is refused with nothing of it run', async () => {
    const contexts = app.running.services.contexts;
    // A unit of work is a transaction: a failure after its statement takes the statement back.
    // Of one statement, the statement is the transaction: committed once it returns (why such a
    // unit of work may throw only for what its statement did not change).
    await assert.rejects(contexts.forSystem(acme, 'test').unitOfWork(failAfter('Taken back')), /after the statement/);
    await assert.rejects(
      contexts.forSystem(acme, 'test').unitOfWork(failAfter('Kept alone'), { oneStatement: true }),
      /after the statement/,
    );
    const kept = await app.sql("SELECT title FROM roles WHERE title IN ('Taken back', 'Kept alone')");
    assert.deepEqual(
      kept.map((r) => r.title),
      ['Kept alone'],
    );
    const title = 'One statement only';
    await assert.rejects(
      contexts.forSystem(acme, 'test').unitOfWork(
        async (ctx) => {
          await ctx.sql('SELECT 1');
          await insertRole(ctx, title);
        },
        { oneStatement: true },
      ),
      /ran a second one/,
    );
    assert.equal((await app.sql('SELECT count(*)::int AS n FROM roles WHERE title = $1', [title]))[0].n, 0);
    // The rename runs so, over REST and GraphQL alike: its answers are those of the tests of roles; here, that it changed the row.
    const [role] = await app.sql(
      "INSERT INTO roles (company_id, title, is_owner, created_at, updated_at) VALUES ($1, 'Renamed alone', false, now(), now()) RETURNING id",
      [acme],
    );
    const renamed = await app.request('PUT', `/api/roles/${role.id}`, {
      token: owner,
      body: { title: 'Renamed alone, done' },
    });
    assert.equal(renamed.status, 200);
    assert.equal((await app.sql('SELECT title FROM roles WHERE id = $1', [role.id]))[0].title, 'Renamed alone, done');
  });
});

describe('a NOTIFY asked for after the commit', () => {
  it('is sent once the unit of work commits, after its change, each notice once; never for a rollback', async () => {
    const contexts = app.running.services.contexts;
    const listener = new pg.Client({ connectionString: app.running.databaseUrl });
    await listener.connect();
    const heard: Array<{ payload: string | undefined; roleSeen: boolean }> = [];
    const seen = new pg.Client({ connectionString: app.running.databaseUrl });
    await seen.connect();
    listener.on('notification', (message) => {
      // What a listener reads on hearing it: the change is already committed.
      void seen
        .query('SELECT count(*)::int AS n FROM roles WHERE title = $1', [message.payload])
        .then(({ rows }) => heard.push({ payload: message.payload, roleSeen: rows[0].n === 1 }));
    });
    await listener.query('LISTEN sb_test_after_commit');
    try {
      await contexts.forSystem(acme, 'test').unitOfWork(async (ctx) => {
        await insertRole(ctx, 'Notified after commit');
        ctx.notifyAfterCommit('sb_test_after_commit', 'Notified after commit');
        ctx.notifyAfterCommit('sb_test_after_commit', 'Notified after commit');
        ctx.notifyAfterCommit('sb_test_after_commit', 'a second on the same channel');
      });
      await assert.rejects(
        contexts.forSystem(acme, 'test').unitOfWork(async (ctx) => {
          ctx.notifyAfterCommit('sb_test_after_commit', 'Rolled back');
          await failAfter('Rolled back')(ctx);
        }),
        /after the statement/,
      );
      await contexts.forSystem(acme, 'test').unitOfWork(
        async (ctx) => {
          await insertRole(ctx, 'Notified after one statement');
          ctx.notifyAfterCommit('sb_test_after_commit', 'Notified after one statement');
        },
        { oneStatement: true },
      );
      for (let waited = 0; heard.length < 3 && waited < 100; waited++) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 200));
      assert.deepEqual(heard, [
        { payload: 'Notified after commit', roleSeen: true },
        { payload: 'a second on the same channel', roleSeen: false },
        { payload: 'Notified after one statement', roleSeen: true },
      ]);
    } finally {
      await listener.end();
      await seen.end();
    }
  });
});

describe("the process's notifier (db/notifier.ts)", () => {
  it('sends one statement at a time: what waits goes in the next, wake-ups merged to the newest, the rest in order', async () => {
    const pool = new pg.Pool({ connectionString: app.running.databaseUrl, max: 2 });
    const listener = new pg.Client({ connectionString: app.running.databaseUrl });
    await listener.connect();
    const heard: Record<string, string[]> = { sb_test_wake: [], sb_test_told: [] };
    listener.on('notification', (message) => heard[message.channel].push(message.payload ?? ''));
    await listener.query('LISTEN sb_test_wake; LISTEN sb_test_told');
    // Counted as the pool is asked: statements made, and the most on their way at once.
    let statements = 0;
    let onTheirWay = 0;
    let most = 0;
    const query = pool.query.bind(pool) as (config: pg.QueryConfig) => Promise<pg.QueryResult>;
    pool.query = ((config: pg.QueryConfig) => {
      statements++;
      most = Math.max(most, ++onTheirWay);
      return query(config).finally(() => onTheirWay--);
    }) as typeof pool.query;
    try {
      const notifier = new Notifier(pool, new Set(['sb_test_wake']));
      for (let i = 1; i <= 20; i++)
        notifier.send([
          ['sb_test_wake', String(i)],
          ['sb_test_told', String(i)],
        ]);
      await notifier.settled();
      for (let waited = 0; heard.sb_test_told.length < 20 && waited < 100; waited++)
        await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(
        heard.sb_test_told,
        Array.from({ length: 20 }, (_, i) => String(i + 1)),
      );
      assert.deepEqual(
        heard.sb_test_wake,
        ['1', '20'],
        'the first at once, the nineteen after it merged to the newest',
      );
      assert.deepEqual({ statements, most }, { statements: 2, most: 1 });
      // A NOTIFY that cannot go is a lost hint: no error, and the notifier settles.
      await pool.end();
      notifier.send([['sb_test_told', 'after the pool closed']]);
      await notifier.settled();
      assert.equal(statements, 3);
    } finally {
      await listener.end();
      if (!pool.ended) await pool.end();
    }
  });
  it('sends wake-ups that take turns at most one per spacing, numbered as they go; a named wake-up at once, other notices with a turn', async () => {
    const pool = new pg.Pool({ connectionString: app.running.databaseUrl, max: 1 });
    const listener = new pg.Client({ connectionString: app.running.databaseUrl });
    await listener.connect();
    const heard: Array<{ payload: string; at: number }> = [];
    listener.on('notification', (message) => heard.push({ payload: message.payload ?? '', at: Date.now() }));
    await listener.query('LISTEN sb_test_turns; LISTEN sb_test_later');
    const spacingMs = 300;
    const hear = async (count: number) => {
      for (let waited = 0; heard.length < count && waited < 100; waited++) await new Promise((r) => setTimeout(r, 20));
      return heard.map((h) => h.payload);
    };
    try {
      const notifier = new Notifier(pool, new Set(['sb_test_turns']), { spacingMs });
      // The first at once; the ten asked for after it merged into one turn, sent a spacing after the first.
      const started = Date.now();
      notifier.send([['sb_test_turns', TURN]]);
      await hear(1);
      for (let i = 0; i < 10; i++) notifier.send([['sb_test_turns', TURN]]);
      await notifier.settled();
      const [first, second] = (await hear(2)).map(Number);
      assert.equal(heard.length, 2, `two wake-ups: ${JSON.stringify(heard)}`);
      assert.ok(Number.isInteger(first) && first >= 0, `a turn goes out numbered: ${heard[0].payload}`);
      assert.equal(second, first + 1, 'the next turn has the next number, however many merged into it');
      assert.ok(heard[0].at - started < spacingMs, 'the first turn after a quiet spell goes at once');
      // Spacing is judged from when the first was asked, not from when it was heard: a first notice heard late on a
      // busy machine would make the two look closer than they were sent.
      assert.ok(
        heard[1].at - started >= spacingMs - 5,
        `spaced: ${heard[1].at - started} ms after the first was asked`,
      );
      // A wake-up that names its target, asked for while a turn waits for its spacing, takes the turn's place at once.
      notifier.send([['sb_test_turns', TURN]]);
      await new Promise((r) => setTimeout(r, 20));
      const named = Date.now();
      notifier.send([['sb_test_turns', 'e7']]);
      await notifier.settled();
      assert.deepEqual((await hear(3)).slice(2), ['e7']);
      assert.ok(heard[2].at - named < spacingMs / 2, `the named wake-up waited ${heard[2].at - named} ms`);
      // A notice of another channel asked for while a turn waits for its spacing goes with the turn.
      notifier.send([['sb_test_turns', TURN]]);
      const later = Date.now();
      notifier.send([['sb_test_later', 'with the turn']]);
      await notifier.settled();
      assert.deepEqual((await hear(5)).slice(3), [String(second + 1), 'with the turn']);
      assert.ok(heard[4].at - started >= 2 * spacingMs - 5, 'the other notice waited for the turn');
      assert.ok(heard[4].at >= later, `${heard[4].at - later} ms after it was asked`);
    } finally {
      await listener.end();
      await pool.end();
    }
  });
});

describe('a statement written with the COMMIT (ctx.sqlAtCommit)', () => {
  const insertAtCommit = (ctx: RequestContext, title: string) => ctx.sqlAtCommit(INSERT_ROLE, [acme, title]);
  const titles = async (like: string) =>
    (await app.sql('SELECT title FROM roles WHERE title LIKE $1 ORDER BY title', [like])).map((r) => r.title);

  it('runs after the unit of work has run, in its transaction, and commits with it', async () => {
    const contexts = app.running.services.contexts;
    const during = await contexts.forSystem(acme, 'test').unitOfWork(async (ctx) => {
      await ctx.sqlAtCommit("UPDATE roles SET title = title || ', renamed at the commit' WHERE title = $1", [
        'At commit',
      ]);
      await insertRole(ctx, 'At commit');
      // Asked for, not yet run: the unit of work still reads its own row as it wrote it.
      return (await ctx.sql<{ title: string }>('SELECT title FROM roles WHERE title LIKE $1', ['At commit%']))[0];
    });
    assert.deepEqual(during, { title: 'At commit' });
    assert.deepEqual(await titles('At commit%'), ['At commit, renamed at the commit']);
    // The only statement of its unit: its BEGIN, it and the COMMIT go together.
    await contexts.forSystem(acme, 'test').unitOfWork(async (ctx) => {
      await insertAtCommit(ctx, 'Alone at commit');
    });
    assert.deepEqual(await titles('Alone at commit'), ['Alone at commit']);
    // A unit of work that runs no statement writes nothing, and answers.
    assert.equal(await contexts.forSystem(acme, 'test').unitOfWork(async () => 'nothing written'), 'nothing written');
  });

  it('that fails rolls the unit of work back: its error is thrown, nothing is kept, no NOTIFY is sent', async () => {
    const contexts = app.running.services.contexts;
    const listener = new pg.Client({ connectionString: app.running.databaseUrl });
    await listener.connect();
    const heard: string[] = [];
    listener.on('notification', (message) => heard.push(message.payload ?? ''));
    await listener.query('LISTEN sb_test_at_commit');
    try {
      for (const notify of [true, false])
        await assert.rejects(
          contexts.forSystem(acme, 'test').unitOfWork(async (ctx) => {
            await insertRole(ctx, `Failed at commit ${notify}`);
            await ctx.sqlAtCommit('SELECT 1 / $1::int', [0]);
            if (notify) ctx.notifyAfterCommit('sb_test_at_commit', 'rolled back');
          }),
          /division by zero/,
        );
      assert.deepEqual(await titles('Failed at commit%'), []);
      // The connection is whole again: the next unit of work on the pool commits.
      await contexts.forSystem(acme, 'test').unitOfWork(async (ctx) => {
        await insertRole(ctx, 'After the failure');
        ctx.notifyAfterCommit('sb_test_at_commit', 'committed');
      });
      assert.deepEqual(await titles('After the failure'), ['After the failure']);
      for (let waited = 0; heard.length < 1 && waited < 100; waited++) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 200));
      assert.deepEqual(heard, ['committed']);
    } finally {
      await listener.end();
    }
  });

  it('outside a unit of work, or in a unit of one statement, runs at once', async () => {
    const contexts = app.running.services.contexts;
    await insertAtCommit(contexts.forSystem(acme, 'test'), 'At once, outside');
    await contexts
      .forSystem(acme, 'test')
      .unitOfWork((ctx) => insertAtCommit(ctx, 'At once, one statement'), { oneStatement: true });
    assert.deepEqual(await titles('At once, %'), ['At once, one statement', 'At once, outside']);
  });
});

describe('rules held under concurrency (20 requests at once)', () => {
  it('stage positions of a pipeline stay 1..n', async () => {
    const [{ id }] = await app.sql('SELECT id FROM pipelines WHERE company_id = $1 ORDER BY id LIMIT 1', [acme]);
    const responses = await together(20, (i) =>
      app.request('POST', `/api/pipeline/${toBase64Id(id)}/stages`, {
        token: owner,
        body: { stage_name: `Race ${i}` },
      }),
    );
    assert.deepEqual([...new Set(responses.map((r) => r.status))], [200]);
    const positions = (
      await app.sql('SELECT position FROM pipeline_stages WHERE pipeline_id = $1 ORDER BY position', [id])
    ).map((r) => r.position);
    assert.deepEqual(
      positions,
      positions.map((_, i) => i + 1),
    );
  });

  it('folder sort orders stay 1..n', async () => {
    const responses = await together(20, (i) =>
      app.request('POST', '/api/Workflow/folder', { token: owner, body: { name: `Race folder ${i}` } }),
    );
    assert.deepEqual([...new Set(responses.map((r) => r.status))], [201], responses.map((r) => r.text).join('\n'));
    const orders = (
      await app.sql('SELECT sort_order FROM workflow_folders WHERE company_id = $1 ORDER BY sort_order', [acme])
    ).map((r) => r.sort_order);
    assert.deepEqual(
      orders,
      orders.map((_, i) => i + 1),
    );
  });

  it('default workflow names stay unique', async () => {
    const responses = await together(20, () => app.request('POST', '/api/Workflow/create', { token: owner, body: {} }));
    assert.deepEqual([...new Set(responses.map((r) => r.status))], [200], responses.map((r) => r.text).join('\n'));
    const names = (
      await app.sql(
        "SELECT lower(name) AS name FROM workflows WHERE company_id = $1 AND name LIKE 'Untitled workflow%'",
        [acme],
      )
    ).map((r) => r.name);
    assert.equal(new Set(names).size, names.length, 'no two default names alike');
    assert.ok(names.length >= 20);
  });

  it('a role title is taken once; the others are told it is taken', async () => {
    const responses = await together(20, () =>
      app.request('POST', '/api/roles', { token: owner, body: { title: 'Racing Title' } }),
    );
    assert.equal(responses.filter((r) => r.status === 201).length, 1);
    for (const r of responses.filter((x) => x.status !== 201)) {
      assert.equal(r.status, 422, r.text);
      assert.deepEqual(r.body.errors, { title: ['The title has already been taken.'] });
    }
    assert.equal((await app.sql("SELECT count(*)::int AS n FROM roles WHERE lower(title) = 'racing title'"))[0].n, 1);
  });

  it('a purchase token buys one number', async () => {
    const search = await app.request('GET', '/api/phone-numbers/available?area_code=212', { token: owner });
    const token = search.body.data[0].purchase_token;
    const before = (await app.sql('SELECT count(*)::int AS n FROM phone_numbers WHERE company_id = $1', [acme]))[0].n;
    const responses = await together(20, () =>
      app.request('POST', '/api/phone-numbers/purchase', { token: owner, body: { provider: 'telco', phoneNo: token } }),
    );
    assert.equal(responses.filter((r) => r.status === 200).length, 1, responses.map((r) => r.text).join('\n'));
    for (const r of responses.filter((x) => x.status !== 200))
      assert.deepEqual(r.body, { success: false, message: 'This purchase token has already been used.' });
    const after = (await app.sql('SELECT count(*)::int AS n FROM phone_numbers WHERE company_id = $1', [acme]))[0].n;
    assert.equal(after, before + 1);
  });

  it('of 25 concurrent wrong passwords for one email only the limit is evaluated', async () => {
    const limited = await startTestApp({ LOGIN_LIMIT_PER_EMAIL: '10/15m', LOGIN_LIMIT_PER_IP: '1000/1m' });
    try {
      const responses = await together(25, () =>
        limited.request('POST', '/api/login', { body: { email: 'owner@gamma.test', password: 'wrong' } }),
      );
      const statuses = responses.map((r) => r.status);
      assert.equal(statuses.filter((s) => s === 404).length, 10, statuses.join(','));
      assert.equal(statuses.filter((s) => s === 429).length, 15, statuses.join(','));
      for (const r of responses.filter((x) => x.status === 429)) assert.ok(Number(r.headers.get('retry-after')) >= 1);
      // The right password is refused too while the window is full.
      const right = await limited.request('POST', '/api/login', {
        body: { email: 'owner@gamma.test', password: 'switchboard' },
      });
      assert.equal(right.status, 429);
    } finally {
      await limited.close();
    }
  });
});
