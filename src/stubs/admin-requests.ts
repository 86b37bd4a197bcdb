// /__admin/requests and near misses: WireMock's verification API over mockyard's one journal.
import type { FastifyInstance } from 'fastify';
import type { AdminGuards } from '../platform/admin/admin-guard.js';
import type { AreaDefinition } from '../platform/area.js';
import { sendJsonList } from '../platform/http/json-stream.js';
import type { JournalRecord, RecordHead } from '../platform/controls/journal.js';
import { MASK } from '../platform/controls/secrets.js';
import type { Scenarios } from '../scenarios/registry.js';
import { isObject, sendNotFound } from './errors.js';
import { parseMapping, withinRegexLimits } from './mapping.js';
import type { RequestRule, Stub } from './stub.js';
import { distance } from './pattern-match.js';
import { parsePattern } from './patterns.js';
import { StubRequest, requestDistance, requestMatches } from './request.js';
import { realView } from './plugin.js';
import { type Stubs, timeSlicer } from './world.js';

export interface AdminContext {
  stubs: Stubs;
  areaOf: (url: string) => AreaDefinition | undefined;
  only?: AreaDefinition;
  /** The host and token checks shared with /__mockyard (platform/admin/admin-guard.ts). */
  guards: AdminGuards;
  /** mockyard's scenarios: a recording can become one (admin-recordings.ts). */
  scenarios: Scenarios;
}

/** A journal id as the UUID WireMock's clients expect for a request. */
export const requestUuid = (id: number): string => `00000000-0000-4000-8000-${id.toString(16).padStart(12, '0')}`;
const idOf = (uuid: string): number => Number.parseInt(uuid.slice(-12), 16);

/** The request as the stub step saw it (or would have: the journal keeps the URL mockyard got). */
export function viewOf(ctx: Pick<AdminContext, 'areaOf' | 'only'>, r: JournalRecord): StubRequest {
  const host = typeof r.headers.host === 'string' ? r.headers.host : undefined;
  const seen = r.seenAs ?? realView(r.url, ctx.areaOf(r.url), ctx.only, undefined, host) ?? { host: '', url: r.url };
  return new StubRequest(r.method, seen.url, seen.host, r.headers, r.body);
}

function loggedRequest(app: FastifyInstance, ctx: AdminContext, r: JournalRecord): Record<string, unknown> {
  const view = viewOf(ctx, r);
  const masked = app.runtime.journal.masked({ ...r, url: view.url });
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(masked.headers))
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  const queryParams: Record<string, { key: string; values: string[] }> = {};
  const maskedView = new StubRequest(r.method, masked.url, view.host, r.headers, undefined);
  for (const [key, values] of maskedView.query) queryParams[key] = { key, values };
  return {
    id: requestUuid(r.id),
    url: masked.url,
    absoluteUrl: `http://${view.host}${masked.url}`,
    method: r.method,
    host: view.host,
    scheme: 'http',
    protocol: 'HTTP/1.1',
    headers,
    // The Cookie header is masked whole (a session is a credential): its values are masked here too.
    cookies: Object.fromEntries([...view.cookies.keys()].map((name) => [name, MASK])),
    queryParams,
    browserProxyRequest: false,
    loggedDate: r.time,
    loggedDateString: new Date(r.time).toISOString(),
    body: masked.body?.toString('utf8') ?? '',
    bodyAsBase64: masked.body?.toString('base64') ?? '',
    area: r.area,
    scenario: r.scenario ?? null,
  };
}

function serveEvent(app: FastifyInstance, ctx: AdminContext, r: JournalRecord): Record<string, unknown> {
  const stub = r.stubId ? ctx.stubs.store.get(r.stubId) : undefined;
  return {
    id: requestUuid(r.id),
    request: loggedRequest(app, ctx, r),
    stubMapping: stub?.json ?? (r.stubId ? { id: r.stubId } : undefined),
    responseDefinition: { status: r.status },
    response: { status: r.status },
    wasMatched: r.stubId !== undefined,
    timing: { totalTime: r.durationMs, serveTime: r.durationMs },
  };
}

/** A request pattern body (as POST /__admin/requests/count takes) as a rule; a MappingError names the field. */
export function patternOf(body: unknown): RequestRule {
  return parseMapping({ request: isObject(body) ? body : {} }, 0).request;
}

/** `fn` over every item, yielding the event loop whenever a time slice is used up (world.ts timeSlicer). */
async function sliced<T, R>(items: Iterable<T>, fn: (item: T) => R): Promise<R[]> {
  const tick = timeSlicer();
  const out: R[] = [];
  for (const item of items) {
    const wait = tick();
    if (wait) await wait;
    out.push(fn(item));
  }
  return out;
}

/** Unmatched, as WireMock means it: no stub answered, and nothing else had an answer either (a 404). */
const unmatched = (r: Pick<RecordHead, 'stubId' | 'status'>) => r.stubId === undefined && r.status === 404;

/** Whether a stub's `metadata` matches a pattern, as WireMock's find-by-metadata applies it to the metadata JSON. */
export function metadataMatcher(body: unknown): (stub: Stub | undefined) => boolean {
  withinRegexLimits(body, '');
  const pattern = parsePattern(body, '');
  return (stub) =>
    stub !== undefined && isObject(stub.json.metadata) && distance(pattern, JSON.stringify(stub.json.metadata)) === 0;
}

/** Reading the journal: every serve event, one, unmatched ones and their near misses. */
function listRoutes(app: FastifyInstance, ctx: AdminContext): void {
  const journal = app.runtime.journal;
  app.get('/requests', async (request, reply) => {
    const q = request.query as { limit?: string; since?: string };
    const since = q.since ? Date.parse(q.since) : undefined;
    const held = journal.reading((r) => since === undefined || r.time >= since);
    const limit = q.limit ? Math.max(0, Number(q.limit)) : Number.POSITIVE_INFINITY;
    function* events() {
      let n = 0;
      for (const r of held) {
        if (n++ >= limit) return;
        yield serveEvent(app, ctx, r);
      }
    }
    // WireMock's GetServeEventsResult, written an event at a time.
    const close = `],"meta":{"total":${held.size}},"requestJournalDisabled":false}`;
    return sendJsonList(reply, '{"requests":[', events(), close);
  });
  app.get('/requests/unmatched', async (_request, reply) => {
    function* logged() {
      for (const r of journal.reading(unmatched)) yield loggedRequest(app, ctx, r);
    }
    return sendJsonList(reply, '{"requests":[', logged(), ']}');
  });
  app.get('/requests/unmatched/near-misses', async () => {
    // Every mapping for every unmatched request: a slice at a time, so other clients are answered meanwhile.
    const slicing = ctx.stubs.slicing();
    const nearMisses = [];
    // Read lazily, a record at a time between the slices, as the journal is meant to be read.
    for (const r of journal.reading(unmatched)) {
      const wait = slicing.tick();
      if (wait) await wait;
      for (const m of await ctx.stubs.store.nearMisses(viewOf(ctx, r), slicing))
        nearMisses.push({
          request: loggedRequest(app, ctx, r),
          stubMapping: m.stub.json,
          matchResult: { distance: m.distance },
          misses: m.misses,
        });
    }
    return { nearMisses };
  });
  app.get('/requests/:id', async (request, reply) => {
    const id = idOf((request.params as { id: string }).id);
    const r = journal.record(id);
    if (!r) return sendNotFound(reply, 'Request');
    return serveEvent(app, ctx, r);
  });
}

/** Verification (count, find) and removal by id, by request pattern or by the matched stub's metadata. */
function verifyRoutes(app: FastifyInstance, ctx: AdminContext): void {
  const journal = app.runtime.journal;
  // The whole journal against one pattern (bodies included), a slice at a time.
  const matching = async (rule: RequestRule) => {
    const hits: JournalRecord[] = [];
    await sliced(journal.reading(), (r) => requestMatches(rule, viewOf(ctx, r)) && hits.push(r));
    return hits;
  };
  const clear = async () => {
    journal.clear();
    return {};
  };
  app.delete('/requests/:id', async (request) => {
    const id = idOf((request.params as { id: string }).id);
    journal.removeWhere((r) => r.id === id);
    return {};
  });
  app.delete('/requests', clear);
  app.post('/requests/reset', clear);
  app.post('/requests/count', async (request) => ({
    count: (await matching(patternOf(request.body))).length,
    requestJournalDisabled: false,
  }));
  app.post('/requests/find', async (request) => ({
    requests: (await matching(patternOf(request.body))).map((r) => loggedRequest(app, ctx, r)),
  }));
  app.post('/requests/remove', async (request) => {
    const rule = patternOf(request.body);
    const found = await matching(rule);
    const ids = new Set(found.map((r) => r.id));
    journal.removeWhere((r) => ids.has(r.id));
    return { requests: found.map((r) => loggedRequest(app, ctx, r)) };
  });
  app.post('/requests/remove-by-metadata', async (request) => {
    const matches = metadataMatcher(request.body);
    const hit = (r: Pick<RecordHead, 'stubId'>) => r.stubId !== undefined && matches(ctx.stubs.store.get(r.stubId));
    const gone = Array.from(journal.reading(hit), (r) => loggedRequest(app, ctx, r));
    journal.removeWhere(hit);
    return { requests: gone };
  });
}

export function requestRoutes(app: FastifyInstance, ctx: AdminContext): void {
  listRoutes(app, ctx);
  verifyRoutes(app, ctx);
  nearMissRoutes(app, ctx);
}

function nearMissRoutes(app: FastifyInstance, ctx: AdminContext): void {
  const journal = app.runtime.journal;
  app.post('/near-misses/request', async (request) => {
    const b = isObject(request.body) ? request.body : {};
    const headers: Record<string, string> = {};
    if (isObject(b.headers))
      for (const [k, v] of Object.entries(b.headers))
        headers[k.toLowerCase()] = Array.isArray(v) ? String(v[0]) : String(v);
    const body = typeof b.body === 'string' ? Buffer.from(b.body) : undefined;
    const view = new StubRequest(String(b.method ?? 'GET').toUpperCase(), String(b.url ?? '/'), '', headers, body);
    return {
      nearMisses: (await ctx.stubs.store.nearMisses(view, ctx.stubs.slicing())).map((m) => ({
        stubMapping: m.stub.json,
        matchResult: { distance: m.distance },
        misses: m.misses,
      })),
    };
  });
  app.post('/near-misses/request-pattern', async (request) => {
    const rule = patternOf(request.body);
    const near = (await sliced(journal.reading(), (r) => ({ r, d: requestDistance(rule, viewOf(ctx, r)) })))
      .sort((a, b) => a.d - b.d)
      .slice(0, 3);
    return {
      nearMisses: near.map(({ r, d }) => ({ request: loggedRequest(app, ctx, r), matchResult: { distance: d } })),
    };
  });
}
