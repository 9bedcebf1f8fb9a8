import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

// AES-256-GCM under APP_KEY: iv (12) | tag (16) | ciphertext, base64url.
// Used for encrypted ids and for credentials stored in the database.

export class SecretBox {
  constructor(private readonly key: Buffer) {}

  seal(text: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  /** The sealed text, or undefined when it was not sealed with this key or was altered. */
  open(sealed: string): string | undefined {
    const bytes = Buffer.from(sealed, 'base64url');
    if (bytes.length < 12 + 16 + 1) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, 12));
      decipher.setAuthTag(bytes.subarray(12, 28));
      return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }
}
