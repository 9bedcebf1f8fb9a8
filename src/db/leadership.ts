import pg from 'pg';
import type { Logger } from '../observability/logger.js';
import { errorFields } from '../observability/logger.js';

// One process of a deployment doing a job alone (the dialer): a session advisory lock, held on a connection of its
// own for as long as the process leads. The lock goes with the connection: a process that dies, or whose connection
// the database drops (a restart), leads no more, and another takes the lock at its next try.

export class Leadership {
  private client?: pg.Client;

  constructor(
    private readonly databaseUrl: string,
    private readonly key: number,
    private readonly log: Logger,
  ) {}

  get held(): boolean {
    return this.client !== undefined;
  }

  /** Leads from now when the lock is free; true when this process leads. */
  async tryAcquire(): Promise<boolean> {
    if (this.client) return true;
    const client = new pg.Client({ connectionString: this.databaseUrl });
    client.on('error', (error) => {
      this.log.warn('leadership connection lost', errorFields(error));
      if (this.client === client) this.client = undefined;
    });
    try {
      await client.connect();
      const { rows } = await client.query<{ led: boolean }>('SELECT pg_try_advisory_lock($1) AS led', [this.key]);
      if (rows[0].led) {
        this.client = client;
        return true;
      }
    } catch (error) {
      this.log.warn('leadership not taken', errorFields(error));
    }
    await client.end().catch(() => undefined);
    return false;
  }

  async release(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }
}
