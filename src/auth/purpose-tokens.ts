import jwt from 'jsonwebtoken';
import { randomUUID } from 'node:crypto';

// Short-lived signed tokens for one purpose (a purchase, an import): the
// client hands back what the server issued, and cannot forge or alter it.

export type Purpose = 'purchase' | 'import';

export interface PurposeClaims {
  jti: string;
  cid: number;
  [key: string]: unknown;
}

export class PurposeTokens {
  constructor(private readonly secret: string) {}

  sign(purpose: Purpose, claims: Record<string, unknown> & { cid: number }, ttlSeconds: number): string {
    return jwt.sign(claims, this.secret, {
      algorithm: 'HS256',
      audience: `switchboard-${purpose}`,
      expiresIn: ttlSeconds,
      jwtid: randomUUID(),
    });
  }

  /** The claims of a valid, unexpired token of this purpose for this company; otherwise undefined. */
  verify(purpose: Purpose, token: string, companyId: number): PurposeClaims | undefined {
    try {
      const claims = jwt.verify(token, this.secret, {
        algorithms: ['HS256'],
        audience: `switchboard-${purpose}`,
      }) as PurposeClaims;
      return claims.cid === companyId && typeof claims.jti === 'string' ? claims : undefined;
    } catch {
      return undefined;
    }
  }
}
