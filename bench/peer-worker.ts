import { run } from 'graphile-worker';
import { signAttempt } from '../src/webhooks/config/signing.js';
import { PEER_TASK, type PeerJob } from './peer-job.js';

// The peer of the webhook bench: a delivery worker as a careful engineer
// would write it on graphile-worker (jobs on the same PostgreSQL, LISTEN/NOTIFY
// for new jobs, its own retries with backoff): one job per delivery, the
// payload in the job, signed the same way as Switchboard signs, sent with
// fetch (its pool keeps connections alive), a 10 s timeout, any non-2xx thrown so the job is
// retried. `PEER_CONCURRENCY` jobs at once per process.

const concurrency = Number(process.env.PEER_CONCURRENCY ?? 50);

const runner = await run({
  connectionString: process.env.DATABASE_URL!,
  concurrency,
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
