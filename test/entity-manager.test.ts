import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Pipeline } from '../src/entities/pipeline.entity.js';
import { Role } from '../src/entities/role.entity.js';
import { startTestApp, type TestApp } from './helpers/app.js';

// Each unit of work forks its EntityManager on its own connection (db/entity-manager.ts): what it writes commits
// or rolls back with the statements of ctx.sql beside it, in one transaction, and is flushed before the commit.

let app: TestApp;
let acme: number;

before(async () => {
  app = await startTestApp();
  [{ id: acme }] = await app.sql("SELECT id FROM companies WHERE name = 'Acme Agency'");
});
after(() => app.close());

const system = () => app.running.services.contexts.forSystem(acme, 'test');
const now = new Date();
const newPipeline = (name: string) => ({ company: acme, name, createdAt: now, updatedAt: now });

describe("a unit of work's EntityManager", () => {
  it("writes in the unit's transaction, beside ctx.sql, flushed before the commit without being asked", async () => {
    await system().unitOfWork(async (ctx) => {
      ctx.em.create(Pipeline, newPipeline('Through the entities'));
      await ctx.sql(
        "INSERT INTO roles (company_id, title, is_owner, created_at, updated_at) VALUES ($1, 'Beside the entities', false, now(), now())",
        [acme],
      );
    });
    const [row] = await app.sql(
      `SELECT p.xmin::text AS pipeline_tx, r.xmin::text AS role_tx FROM pipelines p, roles r
       WHERE p.name = 'Through the entities' AND r.title = 'Beside the entities'`,
    );
    assert.ok(row, 'both rows were committed');
    assert.equal(row.pipeline_tx, row.role_tx, 'in one transaction');
  });

  it('rolls back with the unit: a failure after a flush leaves nothing of it', async () => {
    await assert.rejects(
      system().unitOfWork(async (ctx) => {
        ctx.em.create(Pipeline, newPipeline('Rolled back entity'));
        await ctx.em.flush();
        const [seen] = await ctx.sql<{ n: number }>(
          "SELECT count(*)::int AS n FROM pipelines WHERE name = 'Rolled back entity'",
        );
        assert.equal(seen.n, 1, 'the flush reached the transaction');
        throw new Error('after the flush');
      }),
      /after the flush/,
    );
    assert.equal((await app.sql("SELECT count(*)::int AS n FROM pipelines WHERE name = 'Rolled back entity'"))[0].n, 0);
  });

  it('outside a unit of work reads on the reading pool, dates as Date and relations as references', async () => {
    const ctx = system().readOnly();
    const roles = await ctx.em.find(Role, { company: acme }, { orderBy: { id: 'asc' }, limit: 2 });
    const [first] = await app.sql('SELECT id, created_at FROM roles WHERE company_id = $1 ORDER BY id LIMIT 1', [acme]);
    assert.equal(roles[0].id, first.id);
    assert.ok(roles[0].createdAt instanceof Date);
    assert.equal(roles[0].createdAt.getTime(), new Date(first.created_at).getTime());
    assert.equal(roles[0].company.id, acme);
  });

  it('each unit has its own fork: an entity read in one is not the same object in the next', async () => {
    const read = (name: string) =>
      system().unitOfWork((ctx) => ctx.em.findOneOrFail(Pipeline, { company: acme, name }));
    await system().unitOfWork(async (ctx) => void ctx.em.create(Pipeline, newPipeline('Read twice')));
    const [one, two] = [await read('Read twice'), await read('Read twice')];
    assert.equal(one.id, two.id);
    assert.notEqual(one, two);
  });

  it('finds or makes one contact per number, with ten callers at once', async () => {
    const contacts = app.running.services.contacts;
    const made = await Promise.all(
      Array.from({ length: 10 }, () => system().unitOfWork((ctx) => contacts.findOrCreate(ctx, '+15550001234'))),
    );
    assert.equal(new Set(made.map((contact) => contact.id)).size, 1);
    assert.equal(made[0].phoneNumber, '+15550001234');
    const rows = await app.sql('SELECT id FROM contacts WHERE company_id = $1 AND phone_number = $2', [
      acme,
      '+15550001234',
    ]);
    assert.deepEqual(
      rows.map((row) => row.id),
      [made[0].id],
    );
  });

  it('is refused in a unit of work of one statement (that statement is its transaction)', async () => {
    await assert.rejects(
      system().unitOfWork(async (ctx) => ctx.em.find(Role, { company: acme }), { oneStatement: true }),
      /one statement has no EntityManager/,
    );
  });
});
