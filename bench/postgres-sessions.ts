import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { statFields } from './harness.js';

// Whose sessions a PostgreSQL server's CPU went to: each backend process is matched to the client process holding
// the other end of its connection (`ss` lists each socket's owner), and its CPU counted for that client's name.
// Background processes, the backends of other clients and those that ended between two readings (reaped by the
// postmaster) count as "the rest". Linux only (/proc and iproute2's `ss`); elsewhere everything is the rest.

/** The local port of each loopback connection to `port`, and the pid of the process holding it. */
function clientsOf(port: number): Map<number, number> {
  const owners = new Map<number, number>();
  try {
    const listed = execFileSync('ss', ['-tnpH', 'dst', `127.0.0.1:${port}`], { encoding: 'utf8' });
    for (const line of listed.split('\n')) {
      const match = /127\.0\.0\.1:(\d+)\s+127\.0\.0\.1:\d+.*pid=(\d+)/.exec(line);
      if (match) owners.set(Number(match[1]), Number(match[2]));
    }
  } catch {
    // no ss: every session counts as the rest
  }
  return owners;
}

/** A reading of the server's CPU (µs) by backend pid, with the client each backend serves, named by `names`. */
export interface SessionsReading {
  /** CPU of every backend by pid, and of the postmaster with what it reaped under 0. */
  cpuUs: Map<number, number>;
  /** The name of the client each backend serves, where it is one of `names`. */
  owner: Map<number, string>;
}

/**
 * Reads the CPU of every process of the server `postmaster` (listening on `port`) and which of the named client
 * processes each backend serves; `backends` gives each backend's pid and client port (pg_stat_activity).
 */
export function readSessions(
  postmaster: number,
  port: number,
  backends: Array<{ pid: number; port: number | null }>,
  names: Map<number, string>,
): SessionsReading {
  const clients = clientsOf(port);
  const owner = new Map<number, string>();
  for (const backend of backends) {
    const name = names.get(clients.get(backend.port ?? -1) ?? -1);
    if (name) owner.set(backend.pid, name);
  }
  const [utime, stime, cutime, cstime] = statFields(postmaster).slice(11, 15);
  const cpuUs = new Map<number, number>([[0, (utime + stime + cutime + cstime) * 10_000]]);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = statFields(Number(entry));
      if (fields[1] === postmaster) cpuUs.set(Number(entry), (fields[11] + fields[12]) * 10_000);
    } catch {
      // gone
    }
  }
  return { cpuUs, owner };
}

/** The server's CPU between two readings by the client it served ("the rest" for everything else). */
export function sessionsCpuUs(before: SessionsReading, after: SessionsReading): Record<string, number> {
  const split: Record<string, number> = {};
  const add = (name: string, us: number) => (split[name] = (split[name] ?? 0) + us);
  for (const [pid, used] of after.cpuUs)
    add(after.owner.get(pid) ?? before.owner.get(pid) ?? 'the rest', used - (before.cpuUs.get(pid) ?? 0));
  // A backend that ended meanwhile: its whole life's CPU moved to the postmaster's reaped count, less what it had used before.
  for (const [pid, used] of before.cpuUs) if (!after.cpuUs.has(pid)) add('the rest', -used);
  return split;
}
