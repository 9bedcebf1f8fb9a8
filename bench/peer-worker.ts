import { run } from 'graphile-worker';
import { signAttempt } from '../src/webhooks/config/signing.js';
import { PEER_TASK, type PeerJob } from './peer-job.js';

// The peer of the webhook bench: a delivery worker as a careful engineer
// would write it on graphile-worker (jobs on the same PostgreSQL, added in the
// writing transaction with one add_jobs call, LISTEN/NOTIFY for new jobs, its
// own retries with backoff): one job per delivery, the payload in the job,
// signed the same way as Switchboard signs, sent with fetch (undici: one pool
// per origin, connections kept alive), a 10 s timeout, any non-2xx thrown so
// the job is retried; jobs fetched in batches into a local queue and their
// completions batched. `PEER_CONCURRENCY` jobs at once per process (32: the
// bench runs two processes).

const concurrency = Number(process.env.PEER_CONCURRENCY ?? 32);

const runner = await run({
  connectionString: process.env.DATABASE_URL!,
  concurrency,
  // Tuned for throughput as graphile-worker's performance guide says: jobs fetched (and locked) in batches into a
  // local queue, completions batched into one statement.
  preset: { worker: { localQueue: { size: 2 * concurrency }, completeJobBatchDelay: 0, failJobBatchDelay: 0 } },
  maxPoolSize: 10,
  pollInterval: 1000,
  noHandleSignals: false,
  logger: undefined,
  taskList: {
    [PEER_TASK]: async (raw, helpers) => {
      const job = raw as PeerJob;
      const signed = signAttempt({
        secrets: [job.secret],
        deliveryId: job.deliveryId,
        event: job.event,
        attempt: helpers.job.attempts,
        payload: job.payload,
        now: new Date(),
        userAgent: 'peer-worker',
      });
      const response = await fetch(job.url, {
        method: 'POST',
        headers: signed.headers,
        body: signed.body,
        signal: AbortSignal.timeout(10_000),
      });
      await response.arrayBuffer();
      if (response.status < 200 || response.status >= 300) throw new Error(`HTTP ${response.status}`);
    },
  },
});
process.stdout.write('peer worker ready\n');
await runner.promise;
