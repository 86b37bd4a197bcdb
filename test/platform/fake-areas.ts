// Two tiny areas with real-looking behaviour, so the platform's controls can be tested without the real ones.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AreaDefinition } from '../../src/areas/types.js';

export const NOT_FOUND_PAGE = (id: string) => `<html><body><h1>404</h1><p>Item ${id} does not exist.</p></body></html>`;
export const UNAVAILABLE_PAGE = '<html><title>Internet Archive: Scheduled Maintenance</title></html>';

function notFound(reply: FastifyReply, id: string): FastifyReply {
  return reply.code(404).header('x-fake', 'natural-404').type('text/html; charset=utf-8').send(NOT_FOUND_PAGE(id));
}

/** "archive": GET /archive/items/:id (404 for id "missing"), GET /archive/generation (cached per store generation). */
export const fakeArchive: AreaDefinition = {
  name: 'archive',
  letter: 'A',
  title: 'Fake archive',
  prefix: '/archive',
  upstream: 'https://archive.example',
  plugin: async (app, { store }) => {
    app.setNotFoundHandler((request, reply) => notFound(reply, request.url));
    app.get<{ Params: { id: string }; Querystring: { size?: string } }>(
      '/items/:id',
      { schema: { operationId: 'fake_item', tags: ['archive'], summary: 'An item' } },
      async (request, reply) => {
        if (request.params.id === 'missing') return notFound(reply, request.params.id);
        const size = Number(request.query.size ?? 10);
        return { id: request.params.id, data: 'x'.repeat(size) };
      },
    );
    // A derived answer cached per database generation, the pattern areas use; counts how often it was computed.
    let cache: { generation: number; body: { fingerprint: string; generation: number; computed: number } } | undefined;
    let computed = 0;
    app.get('/generation', { schema: { operationId: 'fake_generation', tags: ['archive'], summary: 'Store generation' } }, async () => {
      if (cache?.generation !== store.generation) {
        computed += 1;
        const row = store.prepare("SELECT value FROM mockyard_meta WHERE key = 'fingerprint'").get() as { value: string };
        cache = { generation: store.generation, body: { fingerprint: row.value, generation: store.generation, computed } };
      }
      return cache.body;
    });
  },
  catalog: () => ({}),
  clientError: (_request, reply, status) => reply.code(status).type('text/html; charset=utf-8').send(`<html><title>${status}</title></html>`),
  forced: {
    statuses: { fake_item: [404, 503], fake_generation: [503] },
    send(request: FastifyRequest, reply: FastifyReply, _operationId: string, status: number) {
      if (status === 404) return notFound(reply, (request.params as { id?: string }).id ?? '');
      return reply.code(503).header('retry-after', '120').type('text/html; charset=utf-8').send(UNAVAILABLE_PAGE);
    },
  },
};

const dkanError = (status: number, message: string) => ({ message, status, timestamp: '2026-01-01T00:00:00+00:00' });

/** "dkan": GET /dkan/query (400 when limit is not a number, 401 forced only). */
export const fakeDkan: AreaDefinition = {
  name: 'dkan',
  letter: 'E',
  title: 'Fake DKAN',
  prefix: '/dkan',
  upstream: 'https://dkan.example',
  plugin: async (app) => {
    app.get<{ Querystring: { limit?: string } }>(
      '/query',
      { schema: { operationId: 'fake_query', tags: ['dkan'], summary: 'A query' } },
      async (request, reply) => {
        const limit = request.query.limit ?? '10';
        if (!/^\d+$/.test(limit)) return reply.code(400).send(dkanError(400, `limit must be a number, got ${limit}`));
        return { results: [], count: 0, limit: Number(limit) };
      },
    );
  },
  catalog: () => ({}),
  clientError: (_request, reply, status, message) => reply.code(status).send(dkanError(status, message)),
  forced: {
    statuses: { fake_query: [400, 401] },
    send(_request, reply, _operationId, status) {
      return reply.code(status).send(dkanError(status, status === 400 ? 'Bad request' : 'Unauthorized'));
    },
  },
};

export const FAKE_AREAS = [fakeArchive, fakeDkan] as const;
