// The dashboard at /__mockyard/: one HTML page and its two bundled assets, served from the package
// (no CDN, works offline). The page holds no data; it reads everything through the admin API.
import { sendMockyardError } from '../http/mockyard-errors.js';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { AreaDefinition } from '../area.js';
import { type AdminGuards, guardAdminScope } from '../admin/admin-guard.js';
import { packageRoot } from '../../paths.js';

export interface DashboardPageOptions {
  areas: readonly AreaDefinition[];
  /** The page answers the host names admin routes answer; its API calls carry the token. */
  guards: AdminGuards;
}

/** Built by `npm run bundle` from src/dashboard/; the only files this route serves. */
const ASSETS: Record<string, string> = {
  'dashboard.js': 'text/javascript; charset=utf-8',
  'dashboard.css': 'text/css; charset=utf-8',
};

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const escapeAttr = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

function page(opts: DashboardPageOptions, admin: boolean, tokenRequired: boolean, stubs: boolean): string {
  const areas = JSON.stringify(
    opts.areas.map((a) => ({ name: a.name, letter: a.letter, title: a.title, prefix: a.prefix })),
  );
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>mockyard dashboard</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/__mockyard/assets/dashboard.css">
<script type="module" src="/__mockyard/assets/dashboard.js"></script>
</head>
<body data-admin="${admin}" data-token-required="${tokenRequired}" data-stubs="${stubs}" data-areas="${escapeAttr(areas)}">
<noscript>The dashboard needs JavaScript. The same data is at /__mockyard/requests and /__mockyard/fixtures.</noscript>
</body>
</html>
`;
}

export async function dashboardPage(app: FastifyInstance, opts: DashboardPageOptions): Promise<void> {
  guardAdminScope(app, opts.guards, false);
  const dir = path.join(packageRoot(), 'dist', 'bundle', 'dashboard');
  // Known once every plugin is registered: whether WireMock's admin API (stubs) is served here.
  let html: string | undefined;
  const render = () => {
    html ??= page(
      opts,
      app.config.admin,
      app.config.adminToken !== null,
      app.config.admin && app.hasRoute({ method: 'GET', url: '/__admin/mappings' }),
    );
    return html;
  };
  const cache = new Map<string, Buffer>();

  app.get('/', { schema: { hide: true } }, async (_request, reply) =>
    reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', CSP)
      .header('cache-control', 'no-store')
      .header('x-content-type-options', 'nosniff')
      .send(render()),
  );

  app.get<{ Params: { file: string } }>('/assets/:file', { schema: { hide: true } }, async (request, reply) => {
    const { file } = request.params;
    const type = Object.hasOwn(ASSETS, file) ? ASSETS[file] : undefined;
    if (!type) {
      return sendMockyardError(reply, 404, `No dashboard asset ${file}`);
    }
    let body = cache.get(file);
    if (!body) {
      try {
        body = await readFile(path.join(dir, file));
      } catch {
        return sendMockyardError(
          reply,
          503,
          'The dashboard is not built; run `npm run build` in the mockyard checkout',
        );
      }
      cache.set(file, body);
    }
    return reply.type(type).header('cache-control', 'no-cache').header('x-content-type-options', 'nosniff').send(body);
  });
}
