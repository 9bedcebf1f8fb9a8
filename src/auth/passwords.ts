import argon2 from 'argon2';

export const hashPassword = (password: string) => argon2.hash(password, { type: argon2.argon2id });

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
