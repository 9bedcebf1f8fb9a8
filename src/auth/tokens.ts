import jwt from 'jsonwebtoken';
import { createSecretKey, randomUUID, type KeyObject } from 'node:crypto';
import type { TokenClaims } from '../context/request-context.js';

// Bearer tokens: JWT HS256 with the algorithm pinned on verify (docs/design.md §3).

export const ISSUER = 'switchboard';
export const AUDIENCE = 'switchboard-api';

export type { TokenClaims };

export class TokenSigner {
  // The key object is made once; given a string, jsonwebtoken tries it as a public key on every call.
  private readonly key: KeyObject;

  constructor(
    secret: string,
    private readonly ttlSeconds: number,
  ) {
    this.key = createSecretKey(Buffer.from(secret, 'utf8'));
  }

  sign(userId: number, companyId: number): { token: string; claims: TokenClaims } {
    const jti = randomUUID();
    const token = jwt.sign({ cid: companyId }, this.key, {
      algorithm: 'HS256',
      subject: String(userId),
      issuer: ISSUER,
      audience: AUDIENCE,
      expiresIn: this.ttlSeconds,
      jwtid: jti,
    });
    return { token, claims: jwt.decode(token) as TokenClaims };
  }

  /** When a token with these claims stops being valid (its expiry, or its issue time plus the lifetime, if sooner), in ms. */
  endsAt(claims: TokenClaims): number {
    return Math.min(claims.exp, claims.iat + this.ttlSeconds) * 1000;
  }

  /** The claims of a valid token, or undefined for anything else (expired, no exp or iat, older than the lifetime, other key or algorithm, malformed). */
  verify(token: string): TokenClaims | undefined {
    try {
      // maxAge bounds the lifetime even for a token that claims a far expiry.
      const claims = jwt.verify(token, this.key, {
        algorithms: ['HS256'],
        issuer: ISSUER,
        audience: AUDIENCE,
        maxAge: this.ttlSeconds,
      });
      if (
        typeof claims !== 'object' ||
        typeof claims.sub !== 'string' ||
        typeof claims.jti !== 'string' ||
        claims.jti.length > 64
      )
        return undefined;
      if (!Number.isSafeInteger(claims.cid) || !Number.isSafeInteger(claims.exp) || !Number.isSafeInteger(claims.iat))
        return undefined;
      if (!/^[0-9]{1,9}$/.test(claims.sub) || (claims.cid as number) < 1 || (claims.cid as number) > 2 ** 31 - 1)
        return undefined;
      return claims as TokenClaims;
    } catch {
      return undefined;
    }
  }
}
