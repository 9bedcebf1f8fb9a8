import { createServer } from 'node:http';

// The overload bench's receivers, in a process of their own so that the load
// of the bench process cannot delay their answers: per endpoint kind (the
// path, /<kind>-<n>), fast answers at once, slow after 50 ms, failing answers
// 503 to a delivery's first attempt, hanging never answers its first
// HANG_FIRST first attempts, down always 503. It counts a delivery answered
// only when its 2xx was handed to the connection within half the timeout of
// the request's arrival, and reports on stdin's end (or SIGTERM) one JSON line.

const HANG_FIRST = Number(process.env.HANG_FIRST ?? 8);
const IN_TIME_MS = Number(process.env.IN_TIME_MS ?? 5000);
const seen = new Set<string>();
const answered = new Map<string, string>();
const againByKind: Record<string, number> = {};
const againSamples: string[] = [];
const hung = new Map<string, number>();
let received = 0;
let again = 0;

const server = createServer((req, res) => {
  const arrived = Date.now();
  req.resume();
  req.on('end', () => {
    received++;
    const id = String(req.headers['webhook-id']);
    const attempt = String(req.headers['x-webhook-attempt']);
    const first = !seen.has(id);
    seen.add(id);
    const kind = /^\/(\w+)-(\d+)$/.exec(req.url ?? '')?.[1] ?? 'fast';
    if (kind === 'hanging' && first && (hung.get(req.url!) ?? 0) < HANG_FIRST) {
      hung.set(req.url!, (hung.get(req.url!) ?? 0) + 1);
      return; // never answered: the attempt times out
    }
    if (kind === 'down' || (kind === 'failing' && first)) {
      res.writeHead(503).end();
      return;
    }
    if (answered.has(id)) {
      again++;
      againByKind[kind] = (againByKind[kind] ?? 0) + 1;
      if (againSamples.length < 5)
        againSamples.push(
          `${req.url} ${id}: attempt ${answered.get(id)} answered 2xx in time, then attempt ${attempt}`,
        );
    }
    const ok = () => {
      res.on('finish', () => {
        if (Date.now() - arrived <= IN_TIME_MS) answered.set(id, attempt);
      });
      res.writeHead(200).end('ok');
    };
    if (kind === 'slow') setTimeout(ok, 50);
    else ok();
  });
});

const report = () => {
  process.stdout.write(
    `${JSON.stringify({ report: { received, seen: seen.size, answered: answered.size, again, againByKind, againSamples } })}\n`,
  );
  server.closeAllConnections();
  server.close(() => process.exit(0));
};
process.stdin.on('end', report);
process.stdin.resume();
process.on('SIGTERM', report);
server.listen(0, '127.0.0.1', () =>
  process.stdout.write(`${JSON.stringify({ listening: (server.address() as { port: number }).port })}\n`),
);
