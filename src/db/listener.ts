import pg from 'pg';
import { errorFields, type Logger } from '../observability/logger.js';

// PostgreSQL LISTEN connections that outlive the database: when a connection
// drops (a restart), it is opened again after a second. `onListening` runs
// after every (re)connect, for whatever was committed meanwhile; `onLost` when
// the connection drops (notifications may be missed until then).
//
// The channels a process listens to share one connection per database and
// application_name: PostgreSQL wakes every listening session of a database at
// each NOTIFY, whatever its channel, so each session more costs the database
// work at every write that wakes the pumps (docs/adr/0075-one-listening-session.md).

export interface Listener {
  /** A statement on the listening connection, and its session's process id; undefined while it is not connected. */
  query<T>(text: string): Promise<{ rows: T[]; pid: number } | undefined>;
  stop(): Promise<void>;
}

interface Handlers {
  onNotify: (payload: string | undefined) => void;
  onListening?: () => void;
  onLost?: () => void;
}

/** One listening session: its channels, each with the handlers listening to it. */
class Session {
  private readonly channels = new Map<string, Set<Handlers>>();
  private current?: pg.Client;
  private listening?: pg.Client;
  private stopped = false;

  constructor(
    private readonly databaseUrl: string,
    private readonly applicationName: string | undefined,
    private readonly log: Logger,
    private readonly onEmpty: () => void,
  ) {}

  add(channel: string, handlers: Handlers): void {
    const had = this.channels.get(channel);
    if (had) had.add(handlers);
    else this.channels.set(channel, new Set([handlers]));
    if (this.channels.size === 1 && had === undefined && !this.current) return void this.open();
    const client = this.listening;
    if (!client) return; // LISTENed and told when the connection opens
    if (had) return handlers.onListening?.();
    client.query(`LISTEN ${channel}`).then(
      () => this.listening === client && handlers.onListening?.(),
      (error) => this.log.warn('cannot listen yet', { channel, ...errorFields(error) }),
    );
  }

  async remove(channel: string, handlers: Handlers): Promise<void> {
    const set = this.channels.get(channel);
    if (!set?.delete(handlers) || set.size > 0) return;
    this.channels.delete(channel);
    if (this.channels.size > 0) {
      await this.listening?.query(`UNLISTEN ${channel}`).catch(() => undefined);
      return;
    }
    this.stopped = true;
    this.onEmpty();
    const client = this.current;
    this.current = undefined;
    this.listening = undefined;
    await client?.end().catch(() => undefined);
  }

  async query<T>(text: string): Promise<{ rows: T[]; pid: number } | undefined> {
    const client = this.listening;
    if (!client) return undefined;
    const { rows } = await client.query(text);
    return { rows: rows as T[], pid: (client as pg.Client & { processID: number }).processID };
  }

  private every(call: (handlers: Handlers) => void): void {
    for (const set of this.channels.values()) for (const handlers of set) call(handlers);
  }

  private async open(): Promise<void> {
    const client = new pg.Client({ connectionString: this.databaseUrl });
    this.current = client;
    const channels = () => [...this.channels.keys()].join(', ');
    const retry = () => {
      if (this.stopped || this.current !== client) return;
      this.current = undefined;
      this.listening = undefined;
      this.every((handlers) => handlers.onLost?.());
      setTimeout(() => void this.open(), 1000).unref();
    };
    client.on('error', (error) => {
      this.log.warn('listener connection error', { channel: channels(), ...errorFields(error) });
      retry();
    });
    client.on('end', retry);
    client.on('notification', (message) => {
      for (const handlers of this.channels.get(message.channel) ?? []) handlers.onNotify(message.payload);
    });
    try {
      await client.connect();
      // Set after connecting: an application_name in the URL would win over the client's option.
      if (this.applicationName)
        await client.query(`SELECT set_config('application_name', $1, false)`, [this.applicationName]);
      // The channels registered by now, in one statement; one registered meanwhile is LISTENed by add().
      const now = [...this.channels.keys()];
      if (this.current !== client || now.length === 0) return;
      await client.query(now.map((channel) => `LISTEN ${channel};`).join(' '));
      if (this.current !== client) return;
      this.listening = client;
      for (const channel of this.channels.keys()) if (!now.includes(channel)) await client.query(`LISTEN ${channel}`);
      this.every((handlers) => handlers.onListening?.());
    } catch (error) {
      this.log.warn('cannot listen yet', { channel: channels(), ...errorFields(error) });
      retry();
    }
  }
}

const sessions = new Map<string, Session>();

/**
 * Listens to `channel` on this process's listening session of the database (one per application_name), opened
 * by the first channel and closed when the last one stops.
 */
export function listen(
  databaseUrl: string,
  channel: string,
  handlers: Handlers,
  log: Logger,
  /** The connection's application_name, as PostgreSQL's list of sessions shows it. */
  applicationName?: string,
): Listener {
  const key = `${applicationName ?? ''} ${databaseUrl}`;
  let session = sessions.get(key);
  if (!session) {
    const made: Session = new Session(databaseUrl, applicationName, log, () => {
      if (sessions.get(key) === made) sessions.delete(key);
    });
    session = made;
    sessions.set(key, made);
  }
  const own = { ...handlers };
  const mine = session;
  mine.add(channel, own);
  return {
    query: (text) => mine.query(text),
    stop: () => mine.remove(channel, own),
  };
}
