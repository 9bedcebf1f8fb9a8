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

/** GraphiQL, CodeMirror and Swagger UI set style elements of their own; scripts stay this origin's only. */
export const TOOL_CSP = CSP.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'").replace("img-src 'self' data:", "img-src 'self' data:; font-src 'self' data:");

const page = (file: string) => (existsSync(`${ROOT}${file}`) ? readFileSync(`${ROOT}${file}`, 'utf8') : undefined);

/** The headers every HTML page of this process carries: its policy, no framing, no referrer. */
export const pageHeaders = (res: express.Response, policy: string) => {
  res.setHeader('Content-Security-Policy', policy);
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'no-referrer');
};

const sendPage = (res: express.Response, html: string, policy: string) => {
  pageHeaders(res, policy);
  res.setHeader('Cache-Control', 'no-cache');
  res.type('html').send(html);
};

const wantsPage = (req: express.Request) => req.accepts(['json', 'html']) === 'html';

/**
 * GET /graphql from a browser (HTML wanted, no query given): the GraphQL
 * explorer. Every other request goes on to the GraphQL server.
 */
export function explorerPage(): express.RequestHandler {
  const explorer = page('explorer.html');
  return (req, res, next) => {
    if (req.method !== 'GET' || !explorer || req.query.query !== undefined || !wantsPage(req)) return next();
    sendPage(res, explorer, TOOL_CSP);
  };
}

export function webRouter(pointer: () => object): Router {
  const router = express.Router();
  const index = page('index.html');
  const built = index !== undefined;

  router.get('/', (req, res) => {
    if (index === undefined || !wantsPage(req)) return void res.json(pointer());
    sendPage(res, index, CSP);
  });
  if (built) {
    // Asset addresses carry a content hash; revalidation by ETag keeps them cheap.
    router.use('/assets', express.static(`${ROOT}assets`, { index: false, setHeaders: (res) => res.setHeader('Cache-Control', 'no-cache') }));
  }
  return router;
}
