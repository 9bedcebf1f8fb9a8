import jwt from 'jsonwebtoken';
import { randomUUID } from 'node:crypto';

// Bearer tokens: JWT HS256 with the algorithm pinned on verify (DESIGN section 3).

export const ISSUER = 'switchboard';
export const AUDIENCE = 'switchboard-api';

export interface TokenClaims {
  sub: string;
  cid: number;
  jti: string;
  iat: number;
  exp: number;
}

export class TokenSigner {
  constructor(private readonly secret: string, private readonly ttlSeconds: number) {}

  sign(userId: number, companyId: number): { token: string; claims: TokenClaims } {
    const jti = randomUUID();
    const token = jwt.sign({ cid: companyId }, this.secret, {
      algorithm: 'HS256',
      subject: String(userId),
      issuer: ISSUER,
      audience: AUDIENCE,
      expiresIn: this.ttlSeconds,
      jwtid: jti,
    });
    return { token, claims: jwt.decode(token) as TokenClaims };
  }

  /** The claims of a valid token, or undefined for anything else (expired, other key or algorithm, malformed). */
  verify(token: string): TokenClaims | undefined {
    try {
      const claims = jwt.verify(token, this.secret, { algorithms: ['HS256'], issuer: ISSUER, audience: AUDIENCE });
      if (typeof claims !== 'object' || !claims.sub || !claims.jti || typeof claims.cid !== 'number') return undefined;
      return claims as TokenClaims;
    } catch {
      return undefined;
    }
  }
}
