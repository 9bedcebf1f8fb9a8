import { ConfigError } from './config-error.js';

/** CORS_ORIGINS: a comma-separated list of origins (scheme://host[:port]), or *. */
export function corsOrigins(raw: string | undefined): string[] {
  const name = 'CORS_ORIGINS';
  if (!raw) return [];
  if (raw.trim() === '*') return ['*'];
  return raw.split(',').map((part) => {
    const origin = part.trim();
    let parsed: URL;
    try {
      parsed = new URL(origin);
    } catch {
      throw new ConfigError(name, `must list origins such as https://app.example.com (got "${origin}")`);
    }
    if (parsed.origin !== origin || !['http:', 'https:'].includes(parsed.protocol)) {
      throw new ConfigError(
        name,
        `must list bare origins such as https://app.example.com, without a path (got "${origin}")`,
      );
    }
    return origin;
  });
}
