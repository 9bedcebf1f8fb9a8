import pg from 'pg';
import { errorFields, type Logger } from '../observability/logger.js';

// A PostgreSQL LISTEN connection that outlives the database: when the
// connection drops (a restart), it is opened again after a second. `onListening`
// runs after every (re)connect, for whatever was committed meanwhile;
// `onLost` when the connection drops (notifications may be missed until then).

export interface Listener {
  /** A statement on the listening connection, and its session's process id; undefined while it is not connected. */
  query<T>(text: string): Promise<{ rows: T[]; pid: number } | undefined>;
  stop(): Promise<void>;
}

export function listen(
  databaseUrl: string,
  channel: string,
  handlers: { onNotify: (payload: string | undefined) => void; onListening?: () => void; onLost?: () => void },
  log: Logger,
  /** The connection's application_name, as PostgreSQL's list of sessions shows it. */
  applicationName?: string,
): Listener {
  let stopped = false;
  let current: pg.Client | undefined;
  let listening: pg.Client | undefined;
  const open = async (): Promise<void> => {
    const client = new pg.Client({ connectionString: databaseUrl });
    current = client;
    const retry = () => {
      if (stopped || current !== client) return;
      current = undefined;
      listening = undefined;
      handlers.onLost?.();
      setTimeout(() => void open(), 1000).unref();
    };
    client.on('error', (error) => {
      log.warn('listener connection error', { channel, ...errorFields(error) });
      retry();
    });
    client.on('end', retry);
    client.on('notification', (message) => handlers.onNotify(message.payload));
    try {
      await client.connect();
      // Set after connecting: an application_name in the URL would win over the client's option.
      if (applicationName) await client.query(`SELECT set_config('application_name', $1, false)`, [applicationName]);
      await client.query(`LISTEN ${channel}`);
      listening = client;
      handlers.onListening?.();
    } catch (error) {
      log.warn('cannot listen yet', { channel, ...errorFields(error) });
      retry();
    }
  };
  void open();
  return {
    async query<T>(text: string) {
      const client = listening;
      if (!client) return undefined;
      const { rows } = await client.query(text);
      return { rows: rows as T[], pid: (client as pg.Client & { processID: number }).processID };
    },
    async stop() {
      stopped = true;
      const client = current;
      current = undefined;
      listening = undefined;
      await client?.end().catch(() => undefined);
    },
  };
}
