import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';

// The floor of the tail part: the least a Node.js process can do in the API's place for each write on this machine.
// It reads the request's JSON, inserts the agent it names in one prepared statement (its commit waiting for the WAL's
// flush, as every write of the product's does), and answers as createAgent does: no token, no GraphQL, no event, no
// delivery. The API's tail above this floor is its own; this much is the machine's, Node's and PostgreSQL's. Started
// by tail.bench.ts as a child process: `node dist/bench/bare-writer.js <database url> <company id>`, it sends its port
// to the parent.

const [databaseUrl, company] = process.argv.slice(2);
const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
pool.on('error', () => undefined); // an idle connection closed at the end of the run
const INSERT = {
  name: 'bare-agent-insert',
  text:
    'INSERT INTO agents (company_id, name, active, online, performance_state, created_at, updated_at) ' +
    "VALUES ($1, $2, true, false, '{}', now(), now()) RETURNING id",
};

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const { variables } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { variables: { n: string } };
    pool.query<{ id: number }>({ ...INSERT, values: [Number(company), variables.n] }).then(
      ({ rows }) => {
        const body = JSON.stringify({ data: { createAgent: { id: String(rows[0].id) } } });
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
      },
      (error: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(error.message),
    );
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => process.send?.((server.address() as AddressInfo).port));
