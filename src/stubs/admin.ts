// WireMock's admin API at /__admin (AdminRoutes): mappings, requests, scenarios, recordings, reset; mockyard's token applies.
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { guardAdminScope } from '../platform/admin/admin-guard.js';
import { sendJsonList } from '../platform/http/json-stream.js';
import { type AdminContext, metadataMatcher, requestRoutes } from './admin-requests.js';
import { recordingRoutes, sendErrors } from './admin-recordings.js';
import { MappingError, isObject, sendNotFound } from './errors.js';
import { loadRe2Soon, mayHoldRegex, re2Loaded } from './patterns.js';

/** Bytes of one admin request body (an import of many mappings). */
export const MAX_ADMIN_BODY_BYTES = 64 * 1024 * 1024;

function mappingRoutes(app: FastifyInstance, ctx: AdminContext): void {
  const store = ctx.stubs.store;
  app.get('/mappings', async (request, reply) => {
    const q = request.query as { limit?: string; offset?: string };
    const all = store.list();
    const offset = Math.max(0, Number(q.offset ?? 0) || 0);
    const limit = q.limit === undefined ? all.length : Math.max(0, Number(q.limit) || 0);
    // WireMock's ListStubMappingsResult, written a mapping at a time (mappings of a MiB each add up).
    const page = all.slice(offset, offset + limit).map((s) => s.json);
    return sendJsonList(reply, '{"mappings":[', page, `],"meta":{"total":${all.length}}}`);
  });
  app.post('/mappings', async (request, reply) => reply.code(201).send(store.add(request.body).json));
  app.delete('/mappings', async () => {
    store.clear();
    return {};
  });
  app.post('/mappings/reset', async () => {
    ctx.stubs.loadDefaults();
    return {};
  });
  app.post('/mappings/import', async (request) => {
    const body = isObject(request.body) ? request.body : {};
    if (!Array.isArray(body.mappings)) throw new MappingError('/mappings', 'must be a list of stub mappings');
    const options = isObject(body.importOptions) ? body.importOptions : {};
    const list =
      options.duplicatePolicy === 'IGNORE'
        ? body.mappings.filter((m) => !(isObject(m) && typeof m.id === 'string' && store.get(m.id)))
        : body.mappings;
    const stored = store.addAll(list);
    if (options.deleteAllNotInImport === true) {
      const keep = new Set(stored.map((s) => s.id));
      for (const s of store.list()) if (!keep.has(s.id)) store.remove(s.id);
    }
    return {};
  });
  app.post('/mappings/find-by-metadata', async (request) => {
    const matches = metadataMatcher(request.body);
    const found = store.list().filter(matches);
    return { mappings: found.map((s) => s.json), meta: { total: found.length } };
  });
  app.post('/mappings/remove-by-metadata', async (request) => {
    const matches = metadataMatcher(request.body);
    for (const s of store.list().filter(matches)) store.remove(s.id);
    return {};
  });
  app.get('/mappings/:id', async (request, reply) => {
    const stub = store.get((request.params as { id: string }).id);
    return stub ? stub.json : sendNotFound(reply, 'Stub mapping');
  });
  app.put('/mappings/:id', async (request, reply) => {
    const id = (request.params as { id: string }).id;
    if (!store.get(id)) return sendNotFound(reply, 'Stub mapping');
    const body = isObject(request.body) ? request.body : {};
    return store.add({ ...body, id, uuid: id }).json;
  });
  app.delete('/mappings/:id', async (request, reply) =>
    store.remove((request.params as { id: string }).id) ? {} : sendNotFound(reply, 'Stub mapping'),
  );
}

function scenarioRoutes(app: FastifyInstance, ctx: AdminContext): void {
  const { store } = ctx.stubs;
  app.get('/scenarios', async () => ({ scenarios: store.scenarios() }));
  app.post('/scenarios/reset', async () => {
    store.resetScenarios();
    return {};
  });
  app.put('/scenarios/:name/state', async (request, reply) => {
    const body = isObject(request.body) ? request.body : {};
    const state = typeof body.state === 'string' ? body.state : undefined;
    return store.setState((request.params as { name: string }).name, state) ? {} : sendNotFound(reply, 'Scenario');
  });

  app.post('/reset', async () => {
    app.runtime.reset();
    return {};
  });
}

/** Registered with prefix /__admin; the same switch, token and browser policy as /__mockyard. */
export async function wiremockAdmin(app: FastifyInstance, ctx: AdminContext): Promise<void> {
  guardAdminScope(app, ctx.guards);
  // WireMock's own API, documented by WireMock; /openapi.json describes mockyard's.
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true };
  });
  // WireMock's clients send Content-Type: application/json on every call, bodies or not, and some send none.
  app.removeAllContentTypeParsers();
  // Requests whose body may hold the process's first regular expression: RE2 is loaded before their handler.
  const bringsRegex = new WeakSet<FastifyRequest>();
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: MAX_ADMIN_BODY_BYTES }, (req, text, done) => {
    if (typeof text !== 'string' || text.trim() === '') return done(null, undefined);
    if (!re2Loaded() && mayHoldRegex(text)) bringsRegex.add(req);
    try {
      done(null, JSON.parse(text));
    } catch (err) {
      done(
        new MappingError('', `the body is not valid JSON (${(err as Error).message})`, 400) as unknown as FastifyError,
      );
    }
  });
  app.setErrorHandler((error: FastifyError | MappingError, request, reply) => {
    if (error instanceof MappingError)
      return sendErrors(
        reply,
        error.status,
        error.field,
        'Error parsing JSON',
        error.message.slice(error.field.length + 2),
      );
    const status = 'statusCode' in error && typeof error.statusCode === 'number' ? error.statusCode : 500;
    if (status >= 500) request.log.error({ err: error }, 'admin request failed');
    return sendErrors(
      reply,
      status,
      '',
      status >= 500 ? 'Internal error' : 'Bad request',
      status >= 500 ? '' : error.message,
    );
  });
  app.setNotFoundHandler((request, reply) => sendNotFound(reply, `Admin route ${request.method} ${request.url}`));
  app.addHook('preHandler', (request, _reply, done) => {
    if (!bringsRegex.has(request)) return done();
    loadRe2Soon().then(() => done());
  });
  mappingRoutes(app, ctx);
  requestRoutes(app, ctx);
  scenarioRoutes(app, ctx);
  recordingRoutes(app, ctx);
}
