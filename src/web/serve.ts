import express, { type Router } from 'express';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// The web interface (web/, bundled into dist/web by `npm run build`), served
// at `/` for browsers. API clients asking `/` for JSON still get the pointer
// to the APIs and their documents.

const ROOT = fileURLToPath(new URL('../../web/', import.meta.url));

/** Only this origin's own scripts, styles and API: nothing from elsewhere, no framing. */
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export function webRouter(pointer: () => object): Router {
  const router = express.Router();
  const indexFile = `${ROOT}index.html`;
  const built = existsSync(indexFile);
  const index = built ? readFileSync(indexFile, 'utf8') : undefined;

  router.get('/', (req, res) => {
    const wantsPage = index !== undefined && req.accepts(['json', 'html']) === 'html';
    if (!wantsPage) return void res.json(pointer());
    res.setHeader('Content-Security-Policy', CSP);
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('Cache-Control', 'no-cache');
    res.type('html').send(index);
  });
  if (built) {
    // Asset addresses carry a content hash; revalidation by ETag keeps them cheap.
    router.use('/assets', express.static(`${ROOT}assets`, { index: false, setHeaders: (res) => res.setHeader('Cache-Control', 'no-cache') }));
  }
  return router;
}
