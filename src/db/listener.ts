import pg from 'pg';
import { errorFields, type Logger } from '../observability/logger.js';

// A PostgreSQL LISTEN connection that outlives the database: when the
// connection drops (a restart), it is opened again after a second. `onListening`
// runs after every (re)connect, for whatever was committed meanwhile;
// `onLost` when the connection drops (notifications may be missed until then).

export interface Listener {
  stop(): Promise<void>;
}

export function listen(
  databaseUrl: string,
  channel: string,
  handlers: { onNotify: (payload: string | undefined) => void; onListening?: () => void; onLost?: () => void },
  log: Logger,
): Listener {
  let stopped = false;
  let current: pg.Client | undefined;
  const open = async (): Promise<void> => {
    const client = new pg.Client({ connectionString: databaseUrl });
    current = client;
    const retry = () => {
      if (stopped || current !== client) return;
      current = undefined;
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
      await client.query(`LISTEN ${channel}`);
      handlers.onListening?.();
    } catch (error) {
      log.warn('cannot listen yet', { channel, ...errorFields(error) });
      retry();
    }
  };
  void open();
  return {
    async stop() {
      stopped = true;
      const client = current;
      current = undefined;
      await client?.end().catch(() => undefined);
    },
  };
}
