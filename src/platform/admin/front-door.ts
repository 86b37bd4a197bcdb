// GET /: what this mockyard serves and where, as a page for people and as JSON for scripts.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import Negotiator from 'negotiator';
import { Type } from 'typebox';
import type { AreaDefinition } from '../area.js';

export interface FrontDoorOptions {
  areas: readonly AreaDefinition[];
  version: string;
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

const FrontDoorSchema = Type.Object({
  name: Type.Literal('mockyard'),
  version: Type.String(),
  areas: Type.Array(
    Type.Object({
      name: Type.String(),
      letter: Type.String(),
      title: Type.String(),
      url: Type.String({ description: "This area's base URL: use it in place of `upstream`" }),
      upstream: Type.String({ description: "The real service's base URL" }),
    }),
  ),
  links: Type.Record(Type.String(), Type.String()),
});

function baseOf(request: FastifyRequest): string {
  const host = request.headers.host ?? `${request.hostname}`;
  return `${request.protocol}://${host}`;
}

function facts(request: FastifyRequest, opts: FrontDoorOptions) {
  const base = baseOf(request);
  return {
    name: 'mockyard' as const,
    version: opts.version,
    areas: opts.areas.map((a) => ({
      name: a.name,
      letter: a.letter,
      title: a.title,
      url: `${base}${a.prefix}`,
      upstream: a.upstream.url,
    })),
    links: {
      dashboard: `${base}/__mockyard/`,
      docs: `${base}/docs`,
      openapi: `${base}/openapi.json`,
      fixtures: `${base}/__mockyard/fixtures`,
      health: `${base}/__mockyard/health`,
    },
  };
}

function page(f: ReturnType<typeof facts>): string {
  const rows = f.areas
    .map(
      (a) =>
        `<tr><td>${a.letter}</td><td>${escapeHtml(a.title)}</td><td><a href="${escapeHtml(a.url)}">${escapeHtml(a.url)}</a></td><td>${escapeHtml(a.upstream)}</td></tr>`,
    )
    .join('\n');
  const links = Object.entries(f.links)
    .map(([name, url]) => `<li><a href="${escapeHtml(url)}">${name}</a>: ${escapeHtml(url)}</li>`)
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>mockyard ${escapeHtml(f.version)}</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem;color:#1b1f24}table{border-collapse:collapse}td,th{padding:.3rem .8rem;border-bottom:1px solid #d0d7de;text-align:left}a{color:#0a58ca}</style>
</head>
<body>
<h1>mockyard ${escapeHtml(f.version)}</h1>
<p>A mock server for five real services. Replace each real base URL with mockyard's.</p>
<table><thead><tr><th scope="col">area</th><th scope="col">service</th><th scope="col">base URL here</th><th scope="col">real base URL</th></tr></thead>
<tbody>
${rows}
</tbody></table>
<h2>More</h2>
<ul>
${links}
</ul>
</body>
</html>
`;
}

export async function frontDoor(app: FastifyInstance, opts: FrontDoorOptions): Promise<void> {
  app.get(
    '/',
    {
      schema: {
        operationId: 'mockyard_front_door',
        tags: ['mockyard'],
        summary: 'The areas, docs and health: an HTML page, or JSON with Accept: application/json',
        produces: ['text/html', 'application/json'],
        response: { 200: FrontDoorSchema },
      },
    },
    async (request, reply) => {
      const f = facts(request, opts);
      const type = new Negotiator(request).mediaType(['text/html', 'application/json']);
      if (type === 'application/json') return reply.type('application/json; charset=utf-8').send(f);
      return reply
        .type('text/html; charset=utf-8')
        .serializer((p: unknown) => String(p))
        .send(page(f));
    },
  );
}
