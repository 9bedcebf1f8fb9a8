// Holds N connections to a PostgreSQL server until stopped (Ctrl-C), as other
// users of a shared server would: to check that `npm test` passes beside them.
//   node scripts/hold-connections.mjs 45 [postgres://postgres@127.0.0.1:5432/postgres]

import pg from 'pg';

const count = Number(process.argv[2] ?? 45);
const url = process.argv[3] ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const clients = [];
for (let i = 0; i < count; i++) {
  const client = new pg.Client({ connectionString: url, application_name: 'held-by-others' });
  await client.connect();
  clients.push(client);
}
process.stdout.write(`holding ${count} connections to ${new URL(url).host} (Ctrl-C to let go)\n`);
const release = async () => {
  await Promise.all(clients.map((client) => client.end()));
  process.exit(0);
};
process.on('SIGINT', release);
process.on('SIGTERM', release);
setInterval(() => {}, 60_000);
