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
export const TOOL_CSP = CSP.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'").replace(
  "img-src 'self' data:",
  "img-src 'self' data:; font-src 'self' data:",
);

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

/** What the sign-in screen may offer in development: the demo logins and their shared password. */
export interface DemoLogins {
  password: string;
  logins: ReadonlyArray<{ email: string; shows: string }>;
}

const attribute = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * `demo`: given in development with demo data only; the page then carries the
 * logins in a meta element (no inline script: the policy allows none), and
 * the sign-in screen offers them.
 */
export function webRouter(pointer: () => object, demo?: DemoLogins): Router {
  const router = express.Router();
  const built = page('index.html');
  const index =
    built && demo
      ? built.replace(
          '</head>',
          `  <meta name="switchboard-demo-logins" content="${attribute(JSON.stringify(demo))}">\n  </head>`,
        )
      : built;

  router.get('/', (req, res) => {
    if (index === undefined || !wantsPage(req)) return void res.json(pointer());
    sendPage(res, index, CSP);
  });
  if (built !== undefined) {
    // The icon of every page (the app, the explorer, the REST docs); browsers that ask for /favicon.ico get it too.
    router.get(['/favicon.svg', '/favicon.ico'], (_req, res) => {
      res.setHeader('Cache-Control', 'public, max-age=86400');
      res.type('image/svg+xml').sendFile(`${ROOT}favicon.svg`);
    });
    // Asset addresses carry a content hash; revalidation by ETag keeps them cheap.
    router.use(
      '/assets',
      express.static(`${ROOT}assets`, {
        index: false,
        setHeaders: (res) => res.setHeader('Cache-Control', 'no-cache'),
      }),
    );
  }
  return router;
}
