import argon2 from 'argon2';

// argon2id at the library's defaults (64 MiB, 3 passes). Under NODE_ENV=test
// the service hashes at the smallest cost argon2 allows, so a test suite that
// signs in hundreds of times does not spend minutes doing it; a hash records
// its own parameters, so either kind verifies everywhere.

const STANDARD = { type: argon2.argon2id } as const;
const FAST = { type: argon2.argon2id, memoryCost: 1024, timeCost: 1, parallelism: 1 } as const;

let options: typeof STANDARD | typeof FAST = STANDARD;

/** Called once at start with the configuration's choice. */
export function usePasswordCost(cost: 'standard' | 'fast'): void {
  options = cost === 'fast' ? FAST : STANDARD;
  dummy = undefined;
}

export const hashPassword = (password: string) => argon2.hash(password, options);

export async function verifyPassword(hash: string, password: string): Promise<boolean> {
  try {
    return await argon2.verify(hash, password);
  } catch {
    return false;
  }
}

// Compared against when the email is unknown, so a miss costs what a hit costs.
let dummy: Promise<string> | undefined;
export const dummyHash = () => (dummy ??= hashPassword('switchboard-timing-equaliser'));
