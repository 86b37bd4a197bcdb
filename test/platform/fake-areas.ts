// Two tiny areas with real-looking behaviour, so the platform's controls can be tested without the real ones.
import { type AreaDefinition, type ErrorAnswer, Upstream } from '../../src/platform/area.js';

export const NOT_FOUND_PAGE = (id: string) => `<html><body><h1>404</h1><p>Item ${id} does not exist.</p></body></html>`;
export const UNAVAILABLE_PAGE = '<html><title>Internet Archive: Scheduled Maintenance</title></html>';

const HTML = 'text/html; charset=utf-8';
const anyObject = { type: 'object', additionalProperties: true } as const;
const page = { type: 'string' } as const;

class NotFound extends Error {
  readonly statusCode = 404;
}

/** "archive": GET /archive/items/:id (404 for id "missing"), GET /archive/generation (derived once per store). */
export const fakeArchive: AreaDefinition = {
  name: 'archive',
  letter: 'A',
  title: 'Fake archive',
  prefix: '/archive',
  upstream: new Upstream('https://archive.example'),
  plugin: async (app) => {
    app.get<{ Params: { id: string }; Querystring: { size?: string; cached?: string } }>(
      '/items/:id',
      {
        schema: {
          operationId: 'fake_item',
          tags: ['archive'],
          summary: 'An item',
          response: { 200: anyObject, 404: page, 503: page },
        },
      },
      async (request, reply) => {
        if (request.params.id === 'missing') throw new NotFound();
        const size = Number(request.query.size ?? 10);
        // ?cached=1: the headers of a download that caches may keep.
        if (request.query.cached) reply.header('cache-control', 'max-age=3600, public').header('etag', '"v1"');
        return { id: request.params.id, data: 'x'.repeat(size) };
      },
    );
    // A derived answer kept by the store, the pattern areas use; counts how often it was computed.
    let computed = 0;
    app.get(
      '/generation',
      {
        schema: {
          operationId: 'fake_generation',
          tags: ['archive'],
          summary: 'Store generation',
          response: { 200: anyObject, 503: page },
        },
      },
      async (request) =>
        request.store.memo('fake:generation', (store) => {
          computed += 1;
          const row = store.prepare("SELECT value FROM mockyard_meta WHERE key = 'fingerprint'").get() as {
            value: string;
          };
          return { fingerprint: row.value, generation: store.generation, computed };
        }),
    );
  },
  catalog: () => ({}),
  formatError({ status, request }): ErrorAnswer {
    if (status === 404) {
      const id = (request.params as { id?: string } | undefined)?.id ?? request.url;
      return { contentType: HTML, body: NOT_FOUND_PAGE(id), headers: { 'x-fake': 'natural-404' } };
    }
    if (status === 503) return { contentType: HTML, body: UNAVAILABLE_PAGE, headers: { 'retry-after': '120' } };
    return { contentType: HTML, body: `<html><title>${status}</title></html>` };
  },
};

const dkanError = (status: number, message: string) =>
  JSON.stringify({ message, status, timestamp: '2026-01-01T00:00:00+00:00' });

class BadLimit extends Error {
  readonly statusCode = 400;
}

/** "dkan": GET /dkan/query (400 when limit is not a number, 401 forced only). */
export const fakeDkan: AreaDefinition = {
  name: 'dkan',
  letter: 'E',
  title: 'Fake DKAN',
  prefix: '/dkan',
  upstream: new Upstream('https://dkan.example'),
  plugin: async (app) => {
    app.get<{ Querystring: { limit?: string } }>(
      '/query',
      {
        schema: {
          operationId: 'fake_query',
          tags: ['dkan'],
          summary: 'A query',
          response: { 200: anyObject, 400: anyObject, 401: anyObject },
        },
      },
      async (request) => {
        const limit = request.query.limit ?? '10';
        if (!/^\d+$/.test(limit)) throw new BadLimit(`limit must be a number, got ${limit}`);
        return { results: [], count: 0, limit: Number(limit) };
      },
    );
  },
  catalog: () => ({}),
  formatError: ({ status, message }) => ({
    contentType: 'application/json; charset=utf-8',
    body: dkanError(status, message ?? (status === 400 ? 'Bad request' : status === 401 ? 'Unauthorized' : 'Error')),
  }),
};

export const FAKE_AREAS = [fakeArchive, fakeDkan] as const;
