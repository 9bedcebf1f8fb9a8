import { randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulid';

// ULIDs with their randomness drawn from a pool refilled 4 KiB at a time: one system call per 256 ids, where the
// library's default asks the system for one byte per character (sixteen calls an id, plain to see in the API's CPU
// profile of a write). A byte over 256 picks each of the 32 characters of the encoding with the same chance.

const pool = Buffer.alloc(4096);
let used = pool.length;

const randomFraction = () => {
  if (used === pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  return pool[used++] / 256;
};

/** A generator of ULIDs, increasing within a millisecond: each kind of id has its own. */
export const ulidFactory = () => monotonicFactory(randomFraction);
