import { Baseline } from './baseline.js';
import { startBestRoutes } from './best-routes.js';
import {
  assertSameAnswer,
  compare,
  listen,
  measure,
  report,
  type Result,
  type Scenario,
  type TestApp,
} from './harness.js';
import { TEST_JWT_SECRET } from '../test/helpers/app.js';
import { loadConfig } from '../src/config/config.js';
import { createLogger } from '../src/observability/logger.js';
import { startService } from '../src/platform/runtime.js';
import { entityManagerOn, openEntities } from '../src/db/entity-manager.js';
import { Role } from '../src/entities/role.entity.js';
import { Agent } from '../src/entities/agent.entity.js';
import { StoredEvent } from '../src/entities/stored-event.entity.js';
import { WebhookDelivery } from '../src/entities/webhook-delivery.entity.js';
import { Call } from '../src/entities/call.entity.js';
import { Company } from '../src/entities/company.entity.js';
import { Contact } from '../src/entities/contact.entity.js';
import { PhoneNumber } from '../src/entities/phone-number.entity.js';
import { randomUUID } from 'node:crypto';

// One app, several ways to the same answer, side by side: REST (route table ->
// in-process GraphQL -> service), /graphql, the hand-written Express + pg
// baseline ("plain": what most people write), and for the read pages the
// best hand-written route (bench/best-routes.ts) on fastify and on Express. (a) a page of roles, (b) a page of appointment calls ("Last Year"
// over 50,000 calls), (c) one write (a role renamed), and /healthz as the floor.

const CALLS = Number(process.env.BENCH_CALLS ?? 50_000);
const PAGINATION = 'pagination { total current_page: currentPage per_page: perPage last_page: lastPage from to }';

/** The calls of one company: one in three booked an appointment; most started last calendar year. */
export async function insertCalls(app: TestApp, companyId: number, count: number): Promise<void> {
  await app.sql(
    `INSERT INTO calls (company_id, agent_id, from_number, to_number, started_at, duration_seconds, status,
      direction, sentiment, recording_url, appointment_at, tags, custom_fields, created_at, updated_at)
    SELECT $1, (SELECT min(id) FROM agents WHERE company_id = $2) + g % 20, '+1212555' || lpad((g % 10000)::text,
      4, '0'), '+1415555' || lpad((g % 9000)::text, 4, '0'),
      date_trunc('year', now()) - interval '1 year' + (g::float / $3 * 400) * interval '1 day', g % 900, 'completed', 'inbound', 'neutral', NULL,
      CASE WHEN g % 3 = 0 THEN now() + interval '3 days' END, '[]', '{}', now(), now()
    FROM generate_series(1, $4) g`,
    [companyId, companyId, count, count],
  );
  // As autovacuum leaves a settled table: statistics, and pages marked all-visible (a second pass, once no snapshot of the insert is left).
  await app.sql('VACUUM ANALYZE calls');
  await app.sql('VACUUM calls');
}

/**
 * The same service with its rate limits off (nothing charged), on the same
 * database, beside `path`: what the limiter costs the read path.
 */
async function withoutLimits(app: TestApp, path: Scenario): Promise<{ paths: Scenario[]; stop: () => Promise<void> }> {
  const unlimited = await startService(
    loadConfig({
      NODE_ENV: 'test',
      DATABASE_URL: app.running.databaseUrl,
      PORT: '0',
      HOST: '127.0.0.1',
      JWT_SECRET: app.config.jwtSecret,
      APP_KEY: app.config.appKey.toString('base64'),
      LOG_LEVEL: 'silent',
      PROCESS_ROLE: 'api',
      DATABASE_POOL_SIZE: String(app.config.databasePoolSize),
      API_LIMIT_PER_TOKEN: 'off',
      API_LIMIT_PER_COMPANY: 'off',
    }),
    createLogger('silent'),
  );
  const paths = [path, { ...path, name: 'unlimited', url: path.url.replace(app.url, unlimited.url) }];
  await assertSameAnswer(paths[0], paths[1]);
  return { paths, stop: () => unlimited.stop() };
}

/**
 * A few per cent on a host whose rounds drift by tens of per cent: more
 * rounds than the other scenarios, and four measures of the same A/B: as
 * for the payload filters, the rate over all rounds, the median of the
 * paired rounds and the machine's CPU per answer; and the CPU per answer of
 * the service's process alone, since the machine's counts the load
 * generator too, which here parses the two header fields the limits add.
 */
const LIMITS_ROUNDS = 11;

function limiterRatios(results: Record<string, Result>): Record<string, number> {
  const { mean, paired, cpu, processCpu } = compare(results.REST, results.unlimited);
  return {
    'roles REST/REST without rate limits': mean,
    'roles REST/REST without rate limits, paired rounds': paired,
    ...(cpu === null ? {} : { 'roles REST/REST without rate limits, machine CPU per answer': cpu }),
    'roles REST/REST without rate limits, service CPU per answer': processCpu,
  };
}

/** `npm run bench -- limits`: only the roles page with the rate limits on and off. */
export async function limitsBench(app: TestApp): Promise<void> {
  const token = await app.login('owner@acme.test');
  const path = { name: 'REST', url: `${app.url}/api/roles?per_page=15`, headers: { authorization: `Bearer ${token}` } };
  const limits = await withoutLimits(app, path);
  const results = { limits: await measure(limits.paths, undefined, LIMITS_ROUNDS) };
  await limits.stop();
  report(
    'limits',
    'the roles page over REST with the rate limits on and off (a second service on the same database, nothing charged)',
    results,
    limiterRatios(results.limits),
  );
}

export async function apiBench(app: TestApp): Promise<void> {
  const token = await app.login('owner@acme.test');
  const [acme] = await app.sql("SELECT id FROM companies WHERE name = 'Acme Agency'");
  await app.sql(
    `INSERT INTO roles (company_id, title, is_owner, created_at, updated_at)
    SELECT $1, 'Bench role ' || g, false, now() - g * interval '1 minute', now() FROM generate_series(1, 200) g`,
    [acme.id],
  );
  await insertCalls(app, acme.id, CALLS);
  const [{ id: renamed }] = await app.sql("SELECT id FROM roles WHERE title = 'Bench role 1'");
  // Each write renames one of 100 roles in turn (as many users editing their own, not all one row).
  const writable = (await app.sql("SELECT id FROM roles WHERE title LIKE 'Bench role %' ORDER BY id LIMIT 100")).map(
    (r) => String(r.id),
  );

  const base = new Baseline(app.running.databaseUrl, TEST_JWT_SECRET);
  base.app.get('/roles', async (req, res) => {
    const viewer = await base.viewer(req, res, 'view-role');
    if (!viewer) return;
    const [rows, count] = await Promise.all([
      base.query(
        'roles-page',
        'SELECT id, title, created_at, updated_at FROM roles WHERE company_id = $1 ORDER BY created_at DESC, id DESC LIMIT 15',
        [viewer.company_id],
      ),
      base.query('roles-total', 'SELECT count(*)::int AS total FROM roles WHERE company_id = $1', [viewer.company_id]),
    ]);
    res.json({
      success: true,
      data: {
        records: rows.rows.map((r) => ({
          id: r.id,
          title: r.title,
          created_at: r.created_at.toISOString(),
          updated_at: r.updated_at.toISOString(),
        })),
        pagination: Baseline.pagination(count.rows[0].total, 1, 15, rows.rowCount ?? 0),
      },
    });
  });
  // The same page through the ORM, on the same route, pool and serializer: the entities' A/B (ADR 0078). A fork of
  // the EntityManager per request, as the service makes, and the page found as MikroORM finds one (findAndCount).
  const orm = await openEntities(app.running.databaseUrl);
  base.app.get('/roles-orm', async (req, res) => {
    const viewer = await base.viewer(req, res, 'view-role');
    if (!viewer) return;
    const em = entityManagerOn(orm, base.pool);
    const [rows, total] = await em.findAndCount(
      Role,
      { company: viewer.company_id },
      { orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], limit: 15, fields: ['title', 'createdAt', 'updatedAt'] },
    );
    res.json({
      success: true,
      data: {
        records: rows.map((r) => ({
          id: r.id,
          title: r.title,
          created_at: r.createdAt.toISOString(),
          updated_at: r.updatedAt.toISOString(),
        })),
        pagination: Baseline.pagination(total, 1, 15, rows.length),
      },
    });
  });
  // And a write: an agent made by one prepared statement, or by the entity's create and flush (the same fork).
  base.app.post('/agents', async (req, res) => {
    const viewer = await base.viewer(req, res);
    if (!viewer) return;
    await base.query(
      'agent-insert',
      `INSERT INTO agents (company_id, name, active, online, performance_state, created_at, updated_at)
       VALUES ($1, $2, true, false, '{}', now(), now()) RETURNING id`,
      [viewer.company_id, req.body.name],
    );
    res.status(201).json({ success: true });
  });
  base.app.post('/agents-orm', async (req, res) => {
    const viewer = await base.viewer(req, res);
    if (!viewer) return;
    const em = entityManagerOn(orm, base.pool);
    em.create(Agent, { company: viewer.company_id, name: req.body.name });
    await em.flush();
    res.status(201).json({ success: true });
  });
  // And the outbox's write: an event kept with one delivery, by one prepared statement (as the outbox writes it) or by
  // the entities' create and flush. Due in the far future, so no worker sends it while the bench runs.
  const FAR = new Date('9999-01-01T00:00:00Z');
  const outboxRow = (companyId: number) => ({
    event: `evt_${randomUUID().replaceAll('-', '')}`,
    delivery: `msg_${randomUUID().replaceAll('-', '')}`,
    data: { agent_id: '1', name: 'Bench agent' },
    payload: '{"event":"agent.created","data":{"agent_id":"1","name":"Bench agent"}}',
    companyId,
  });
  base.app.post('/events', async (req, res) => {
    const viewer = await base.viewer(req, res);
    if (!viewer) return;
    const row = outboxRow(viewer.company_id);
    await base.query(
      'event-insert',
      `WITH kept AS (INSERT INTO events (id, company_id, type, data, contact, occurred_at, subjects, filtered_by)
         VALUES ($1, $2, 'agent.created', $3::json, NULL, now(), '{}', '{}'))
       INSERT INTO webhook_deliveries (id, webhook_id, company_id, event, status, payload, attempt_count, final_attempt,
         next_attempt_at, next_trigger, created_at, event_id)
       VALUES ($4, 0, $2, 'agent.created', 'pending', $5, 0, 5, $6, 'scheduled', now(), $1)`,
      [row.event, row.companyId, JSON.stringify(row.data), row.delivery, row.payload, FAR],
    );
    res.status(201).json({ success: true });
  });
  base.app.post('/events-orm', async (req, res) => {
    const viewer = await base.viewer(req, res);
    if (!viewer) return;
    const row = outboxRow(viewer.company_id);
    const em = entityManagerOn(orm, base.pool);
    const now = new Date();
    em.create(StoredEvent, {
      id: row.event,
      company: row.companyId,
      type: 'agent.created',
      data: row.data,
      occurredAt: now,
    });
    em.create(WebhookDelivery, {
      id: row.delivery,
      webhookId: 0,
      companyId: row.companyId,
      event: 'agent.created',
      payload: row.payload,
      nextAttemptAt: FAR,
      createdAt: now,
      eventId: row.event,
    });
    await em.flush();
    res.status(201).json({ success: true });
  });
  // And the facts an inbound call's decision is asked about (the company, the number called, the caller as a contact,
  // the company's agents, the decision already made): one statement, as the call path reads them where memory does
  // not hold them (ADR 0095), or five finds through the entities, side by side on the pool.
  const factsOf = (f: {
    name: string;
    number: number | null;
    agent: number | null;
    contact: number | null;
    agents: number[];
    decided: boolean;
  }) => ({ success: true, data: f });
  base.app.get('/call-facts', async (req, res) => {
    const viewer = await base.viewer(req, res);
    if (!viewer) return;
    const { rows } = await base.query(
      'call-facts',
      `SELECT co.name, pn.id AS number, pn.chatbot_agent_id AS agent, ct.id AS contact,
         ARRAY(SELECT a.id FROM agents a WHERE a.company_id = co.id ORDER BY a.id) AS agents, cl.decided_by IS NOT NULL AS decided
       FROM companies co
       LEFT JOIN phone_numbers pn ON pn.company_id = co.id AND pn.phone_no = $2
       LEFT JOIN contacts ct ON ct.company_id = co.id AND ct.phone_number = $3
       LEFT JOIN calls cl ON cl.provider_call_id = $4 AND cl.company_id = co.id
       WHERE co.id = $1`,
      [viewer.company_id, req.query.to, req.query.from, req.query.sid],
    );
    res.json(factsOf(rows[0]));
  });
  base.app.get('/call-facts-orm', async (req, res) => {
    const viewer = await base.viewer(req, res);
    if (!viewer) return;
    const em = entityManagerOn(orm, base.pool);
    const company = viewer.company_id;
    const [found, number, contact, agents, call] = await Promise.all([
      em.findOneOrFail(Company, company, { fields: ['name'] }),
      em.findOne(PhoneNumber, { company, phoneNo: String(req.query.to) }, { fields: ['chatbotAgent'] }),
      em.findOne(Contact, { company, phoneNumber: String(req.query.from) }, { fields: ['id'] }),
      em.find(Agent, { company }, { fields: ['id'], orderBy: { id: 'asc' } }),
      em.findOne(Call, { company, providerCallId: String(req.query.sid) }, { fields: ['decidedBy'] }),
    ]);
    res.json(
      factsOf({
        name: found.name,
        number: number?.id ?? null,
        agent: number?.chatbotAgent?.id ?? null,
        contact: contact?.id ?? null,
        agents: agents.map((a) => a.id),
        decided: !!call?.decidedBy,
      }),
    );
  });
  base.app.get('/appointments', async (req, res) => {
    const viewer = await base.viewer(req, res);
    if (!viewer) return;
    const range = `WITH r AS (SELECT (date_trunc('year', now() AT TIME ZONE $2) - interval '1 year') AT TIME ZONE $2 AS start,
      date_trunc('year', now() AT TIME ZONE $2) AT TIME ZONE $2 AS "end")`;
    const where =
      'c.company_id = $1 AND c.appointment_at IS NOT NULL AND c.started_at >= r.start AND c.started_at < r."end"';
    const [rows, count] = await Promise.all([
      base.query(
        'appointments-page',
        `${range}
        SELECT c.id, to_char(c.started_at AT TIME ZONE $2, 'YYYY-MM-DD HH24:MI:SS') AS call_datetime, a.name AS agent_name,
               c.from_number, c.to_number, c.duration_seconds, to_char(c.appointment_at AT TIME ZONE $2, 'YYYY-MM-DD HH24:MI:SS') AS appointment,
               c.status, c.direction, c.sentiment, c.recording_url IS NOT NULL AS recording_available
        FROM r, calls c LEFT JOIN agents a ON a.id = c.agent_id
        WHERE ${where} ORDER BY c.started_at DESC, c.id DESC LIMIT 15`,
        [viewer.company_id, viewer.time_zone],
      ),
      base.query('appointments-total', `${range} SELECT count(*)::int AS total FROM r, calls c WHERE ${where}`, [
        viewer.company_id,
        viewer.time_zone,
      ]),
    ]);
    res.json({
      success: true,
      data: {
        records: rows.rows.map((r) => ({
          id: r.id,
          call_datetime: r.call_datetime,
          agent_name: r.agent_name,
          numbers: { from: r.from_number, to: r.to_number },
          duration: r.duration_seconds,
          appointment: r.appointment,
          status: r.status,
          direction: r.direction,
          sentiment: r.sentiment,
          recording_available: r.recording_available,
        })),
        pagination: Baseline.pagination(count.rows[0].total, 1, 15, rows.rowCount ?? 0),
      },
    });
  });
  // The same checks and answers as the service: 404 for another company's role, 409 for the Owner role, 422 for a taken title.
  base.app.put('/roles/:id', async (req, res) => {
    const viewer = await base.viewer(req, res, 'edit-role');
    if (!viewer) return;
    const title = typeof req.body?.title === 'string' ? req.body.title.trim() : '';
    if (!title || title.length > 255)
      return void res.status(422).json({ success: false, message: 'The title field is required.' });
    const client = await base.pool.connect();
    try {
      await client.query('BEGIN');
      const {
        rows: [role],
      } = await base.query(
        'role-lock',
        'SELECT id, is_owner FROM roles WHERE id = $1 AND company_id = $2 FOR UPDATE',
        [Number(req.params.id), viewer.company_id],
        client,
      );
      if (!role)
        return void (await client.query('ROLLBACK'),
        res.status(404).json({ success: false, message: 'Role not found.' }));
      const { rowCount: taken } = await base.query(
        'role-title-taken',
        'SELECT 1 FROM roles WHERE company_id = $1 AND lower(title) = lower($2) AND id <> $3',
        [viewer.company_id, title, role.id],
        client,
      );
      if (taken)
        return void (await client.query('ROLLBACK'),
        res.status(422).json({ success: false, message: 'The title has already been taken.' }));
      if (role.is_owner)
        return void (await client.query('ROLLBACK'),
        res.status(409).json({ success: false, message: 'The Owner role cannot be changed or deleted.' }));
      await base.query(
        'role-rename',
        'UPDATE roles SET title = $1, updated_at = now() WHERE id = $2',
        [title, role.id],
        client,
      );
      await client.query('COMMIT');
      res.json({ success: true, message: 'Role updated successfully.' });
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    } finally {
      client.release();
    }
  });
  const server = await listen(base.app);
  const best = await startBestRoutes(app.running.databaseUrl, TEST_JWT_SECRET);
  const auth = { authorization: `Bearer ${token}` };
  const json = { ...auth, 'content-type': 'application/json' };
  const graphql = (query: string) => ({
    url: `${app.url}/graphql`,
    method: 'POST',
    headers: json,
    body: JSON.stringify({ query }),
  });

  const roles = {
    REST: { name: 'REST', url: `${app.url}/api/roles?per_page=15`, headers: auth },
    GraphQL: {
      name: 'GraphQL',
      ...graphql(
        `{ roles(page: 1, perPage: 15) { records { id title created_at: createdAt updated_at: updatedAt } ${PAGINATION} } }`,
      ),
    },
    plain: { name: 'plain', url: `${server.url}/roles`, headers: auth },
    orm: { name: 'orm', url: `${server.url}/roles-orm`, headers: auth },
    best: { name: 'best', url: `${best.fastifyUrl}/roles`, headers: auth },
    bestExpress: { name: 'bestExpress', url: `${best.expressUrl}/roles`, headers: auth },
  };
  const appointments = {
    REST: { name: 'REST', url: `${app.url}/api/ai/dashboard/appointments?date_range=Last%20Year`, headers: auth },
    GraphQL: {
      name: 'GraphQL',
      ...graphql(
        `{ appointmentCalls(filter: { dateRange: Last_Year }) { records { id call_datetime: callDatetime ` +
          `agent_name: agentName numbers { from to } duration appointment status direction sentiment ` +
          `recording_available: recordingAvailable } ${PAGINATION} } }`,
      ),
    },
    plain: { name: 'plain', url: `${server.url}/appointments`, headers: auth },
    best: { name: 'best', url: `${best.fastifyUrl}/appointments`, headers: auth },
    bestExpress: { name: 'bestExpress', url: `${best.expressUrl}/appointments`, headers: auth },
  };
  const write = {
    REST: {
      name: 'REST',
      url: `${app.url}/api/roles/{v}`,
      method: 'PUT',
      headers: json,
      bodyTemplate: '{"title":"Renamed REST {n}"}',
      cycle: writable,
    },
    // As a client sends it: one document, the values as variables.
    GraphQL: {
      name: 'GraphQL',
      url: `${app.url}/graphql`,
      method: 'POST',
      headers: json,
      bodyTemplate:
        '{"query":"mutation Rename($id: ID!, $title: String!) { updateRole(id: $id, input: { title: $title ' +
        '}) { id } }","variables":{"id":"{v}","title":"Renamed GraphQL {n}"}}',
      cycle: writable,
    },
    plain: {
      name: 'plain',
      url: `${server.url}/roles/{v}`,
      method: 'PUT',
      headers: json,
      bodyTemplate: '{"title":"Renamed plain {n}"}',
      cycle: writable,
    },
    best: {
      name: 'best',
      url: `${best.fastifyUrl}/roles/{v}`,
      method: 'PUT',
      headers: json,
      bodyTemplate: '{"title":"Renamed best {n}"}',
      cycle: writable,
    },
    bestExpress: {
      name: 'bestExpress',
      url: `${best.expressUrl}/roles/{v}`,
      method: 'PUT',
      headers: json,
      bodyTemplate: '{"title":"Renamed bestExpress {n}"}',
      cycle: writable,
    },
  };
  for (const [what, paths, field] of [
    ['roles', roles, 'roles'],
    ['appointments', appointments, 'appointmentCalls'],
  ] as const) {
    await assertSameAnswer(paths.REST, paths.plain);
    await assertSameAnswer(paths.REST, paths.best);
    await assertSameAnswer(paths.REST, paths.bestExpress);
    await assertSameAnswer(paths.REST, paths.GraphQL, (graphqlBody) =>
      JSON.stringify({ success: true, data: JSON.parse(graphqlBody).data[field] }),
    );
    process.stdout.write(`${what}: the five paths answer the same bytes\n`);
  }
  await assertSameAnswer(roles.plain, roles.orm);
  const limits = await withoutLimits(app, roles.REST);
  const one = (path: Scenario & { bodyTemplate: string }, n: string): Scenario => ({
    ...path,
    url: path.url.replace('{v}', String(renamed)),
    body: path.bodyTemplate.replace('{v}', String(renamed)).replace('{n}', n),
  });
  await assertSameAnswer(one(write.REST, 'same'), one(write.plain, 'same'));
  await assertSameAnswer(one(write.REST, 'same'), one(write.best, 'same'));
  await assertSameAnswer(one(write.REST, 'same'), one(write.bestExpress, 'same'));
  // And the same refusals: a taken title, the Owner role, another company's role.
  const [{ id: ownerRole }] = await app.sql('SELECT id FROM roles WHERE company_id = $1 AND is_owner', [acme.id]);
  const [{ id: theirs }] = await app.sql('SELECT id FROM roles WHERE company_id <> $1 LIMIT 1', [acme.id]);
  const [{ title: takenTitle }] = await app.sql(
    'SELECT title FROM roles WHERE company_id = $1 AND id <> $2 AND NOT is_owner LIMIT 1',
    [acme.id, renamed],
  );
  for (const [id, title] of [
    [renamed, takenTitle],
    [ownerRole, 'Not the owner'],
    [theirs, 'Not theirs'],
  ] as const) {
    const ask = (path: Scenario & { bodyTemplate: string }): Scenario => ({
      ...path,
      url: path.url.replace('{v}', String(id)),
      body: JSON.stringify({ title }),
    });
    await assertSameAnswer(ask(write.REST), ask(write.best));
    await assertSameAnswer(ask(write.REST), ask(write.bestExpress));
  }
  await assertSameAnswer(
    one(write.GraphQL, 'check'),
    {
      name: 'expected',
      url: `${app.url}/graphql`,
      method: 'POST',
      headers: json,
      body: JSON.stringify({ query: `{ role(id: "${renamed}") { id } }` }),
    },
    (body) => body.replace('"role"', '"updateRole"'),
  );
  const [{ title }] = await app.sql('SELECT title FROM roles WHERE id = $1', [renamed]);
  if (title !== 'Renamed GraphQL check') throw new Error(`the write did not happen: ${title}`);

  const agents = {
    plain: {
      name: 'plain',
      url: `${server.url}/agents`,
      method: 'POST',
      headers: json,
      body: '{"name":"Bench agent"}',
    },
    orm: {
      name: 'orm',
      url: `${server.url}/agents-orm`,
      method: 'POST',
      headers: json,
      body: '{"name":"Bench agent"}',
    },
  };
  await assertSameAnswer(agents.plain, agents.orm);
  const events = {
    plain: { name: 'plain', url: `${server.url}/events`, method: 'POST', headers: json, body: '{}' },
    orm: { name: 'orm', url: `${server.url}/events-orm`, method: 'POST', headers: json, body: '{}' },
  };
  await assertSameAnswer(events.plain, events.orm);
  // A call to one of the company's numbers from one of its contacts, not yet decided.
  const [called] = await app.sql<{ to: string; from: string }>(
    `SELECT pn.phone_no AS to, (SELECT phone_number FROM contacts c WHERE c.company_id = pn.company_id ORDER BY id LIMIT 1) AS from
     FROM phone_numbers pn JOIN users u ON u.company_id = pn.company_id WHERE u.email = 'owner@acme.test' ORDER BY pn.id LIMIT 1`,
  );
  const factsQuery = `to=${encodeURIComponent(called.to)}&from=${encodeURIComponent(called.from)}&sid=CAbench`;
  const facts = {
    plain: { name: 'plain', url: `${server.url}/call-facts?${factsQuery}`, headers: auth },
    orm: { name: 'orm', url: `${server.url}/call-facts-orm?${factsQuery}`, headers: auth },
  };
  await assertSameAnswer(facts.plain, facts.orm);
  const results = {
    roles: await measure(Object.values(roles)),
    // Before the agents' writes: the facts list the company's agents, which those add by the thousand.
    facts: await measure(Object.values(facts)),
    agents: await measure(Object.values(agents)),
    events: await measure(Object.values(events)),
    appointments: await measure(Object.values(appointments)),
    write: await measure(Object.values(write), () => app.sql('VACUUM ANALYZE roles')),
    floor: await measure([{ name: 'healthz', url: `${app.url}/healthz` }]),
    limits: await measure(limits.paths, undefined, LIMITS_ROUNDS),
  };
  await limits.stop();
  const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
  const againstBest: Record<string, number> = {};
  for (const page of ['roles', 'appointments'] as const) {
    const r = results[page];
    againstBest[`${page} REST/best`] = ratio(r.REST.rps, r.best.rps);
    againstBest[`${page} GraphQL/best`] = ratio(r.GraphQL.rps, r.best.rps);
    againstBest[`${page} REST/bestExpress`] = ratio(r.REST.rps, r.bestExpress.rps);
    againstBest[`${page} bestExpress/best`] = ratio(r.bestExpress.rps, r.best.rps);
  }
  againstBest['write REST/best'] = ratio(results.write.REST.rps, results.write.best.rps);
  againstBest['write GraphQL/best'] = ratio(results.write.GraphQL.rps, results.write.best.rps);
  againstBest['write REST/bestExpress'] = ratio(results.write.REST.rps, results.write.bestExpress.rps);
  const roles99 = ratio(results.roles.REST.p99, results.roles.REST.p50);
  Object.assign(againstBest, limiterRatios(results.limits));
  report(
    'api',
    `(a) roles page, 15 of 205 (orm: the baseline route through the entities); (a2) an agent made, by one ` +
      `statement and through the entities; (a3) an event kept with one delivery, the outbox's write, the same two ways; (a4) an inbound call's ` +
      `facts, by one statement and by five finds through the entities; (b) appointment calls, Last Year, first page over ` +
      `${CALLS.toLocaleString('en-US')} calls; (c) a role renamed; /healthz as the floor; (d) the roles ` +
      `page over REST with the rate limits on and off (a second service on the same database)`,
    results,
    { ...againstBest, 'roles REST p99/p50': roles99 },
  );
  server.close();
  await best.close();
  await orm.close(true);
  await base.pool.end();
}
