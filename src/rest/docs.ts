import express, { type Router } from 'express';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pageHeaders, TOOL_CSP } from '../web/serve.js';

// Browsable API docs at /api/docs; every asset is served from this process (no CDN).

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Switchboard API</title>
  <link rel="icon" href="/favicon.svg" type="image/svg+xml">
  <link rel="stylesheet" href="/api/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/api/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/api/docs/init.js"></script>
</body>
</html>
`;

const INIT = `window.ui = SwaggerUIBundle({ url: '/api/openapi.json', dom_id: '#swagger-ui', deepLinking: true });\n`;

export function docsRouter(openapi: () => object): Router {
  const router = express.Router();
  router.get('/api/openapi.json', (_req, res) => {
    res.json(openapi());
  });
  router.get('/api/docs', (_req, res) => {
    pageHeaders(res, TOOL_CSP);
    res.type('html').send(PAGE);
  });
  router.get('/api/docs/init.js', (_req, res) => {
    res.type('application/javascript').send(INIT);
  });
  // The package's folder, found without loading its (large) module.
  const assets = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  router.use('/api/docs/assets', express.static(assets, { index: false }));
  return router;
}
