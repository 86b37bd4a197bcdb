// Property-based requests from /openapi.json: no 5xx unless asked for, no crash or hang, errors in the
// area's own shape, successes valid against the contract. `npm run fuzz` runs many more (FUZZ_RUNS, FUZZ_SEED).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_URL_LENGTH } from '../../src/platform/http/limits.js';
import { testApp } from '../helpers/app.js';
import {
  AREAS,
  BAD_ENCODINGS,
  check,
  emptySummary,
  errorShapeProblem,
  formatSummary,
  injectSender,
  loadCatalog,
  loadOperations,
  record,
  requestArbitrary,
  type Area,
  type Summary,
} from './fuzz-lib.js';
import { rawRequest } from './socket.js';

const FULL = process.env.FUZZ_FULL === '1';
const RUNS = Number(process.env.FUZZ_RUNS ?? (FULL ? 5000 : 400));
// Fixed in `npm test` so CI is deterministic; random in `npm run fuzz` (printed, replay with FUZZ_SEED).
const SEED =
  process.env.FUZZ_SEED !== undefined
    ? Number(process.env.FUZZ_SEED)
    : FULL
      ? (Date.now() ^ (process.pid << 8)) >>> 0
      : 20260101;
const TIMEOUT_MS = 5_000;

const { app, store } = await testApp({ journalSize: '5' });
const ops = await loadOperations(app);
const byId = new Map(ops.map((o) => [o.operationId, o]));
const catalog = await loadCatalog(app, store);
// The statuses an operation can be forced to: the error responses its route documents.
const documented = Object.fromEntries(
  ops.map((o) => [
    o.operationId,
    Object.keys(o.responses)
      .map(Number)
      .filter((s) => s >= 400),
  ]),
);

const report = (title: string, summary: Summary) => {
  process.stdout.write(`\n${formatSummary(title, summary)}\n`);
  const failed = summary.failures.map(
    (f) =>
      `[${f.invariant}] ${f.status ?? '-'} ${f.request.url.slice(0, 300)} ${JSON.stringify(f.request.headers).slice(0, 200)}: ${f.detail}`,
  );
  expect(failed.slice(0, 20), `${failed.length} invariant failures (seed ${SEED})`).toEqual([]);
};

describe(`fuzzing every area operation (seed ${SEED}, ${RUNS} runs)`, () => {
  it('covers every area operation of the OpenAPI document', () => {
    expect(new Set(ops.map((o) => o.area))).toEqual(new Set(AREAS));
    expect(ops.length).toBeGreaterThanOrEqual(9);
  });

  it('holds the invariants for generated requests through inject', { timeout: FULL ? 3_600_000 : 30_000 }, async () => {
    const summary = emptySummary();
    const sender = injectSender(app);
    const requests = fc.sample(requestArbitrary(ops, catalog, documented), { seed: SEED, numRuns: RUNS });
    for (const req of requests) record(summary, req, await check(sender, req, TIMEOUT_MS, byId));
    expect(Object.values(summary.perArea).every((n) => n > 0)).toBe(true);
    report(`fuzz (inject, seed ${SEED})`, summary);
  });
});

describe('over a real socket', () => {
  const base: Record<Area, string> = {
    archive: '/archive/metadata/x',
    marketcheck: '/marketcheck/popular/cars',
    appcenter: '/appcenter/v0.1/apps/o/a/releases',
    agco: '/agco/api/v2/StringDefinitions',
    dkan: '/dkan/datastore/query/x/0',
  };
  const cases: { area: Area; target: string | Buffer; statuses: number[]; shape: boolean }[] = [];
  for (const area of AREAS) {
    for (const size of [MAX_URL_LENGTH + 1, 20 * 1024, 40 * 1024])
      cases.push({ area, target: `${base[area]}?x=${'a'.repeat(size)}`, statuses: [414], shape: true });
    for (const bad of BAD_ENCODINGS.filter((b) => b !== '%00'))
      cases.push({ area, target: `${base[area]}${bad}`, statuses: [400, 404], shape: true });
    cases.push({
      area,
      target: `${base[area]}?q=${BAD_ENCODINGS.join('')}`,
      statuses: [200, 400, 401, 404],
      shape: true,
    });
    // Bytes that are not HTTP at all: Node's parser refuses them before any route or hook runs, so the
    // answer is Fastify's generic 400 (like its 431 for headers over 64 KB), not the area's shape.
    cases.push({
      area,
      target: Buffer.concat([Buffer.from(`${base[area]}/`), Buffer.from([0xc3, 0xa9, 0xff, 0x80])]),
      statuses: [400, 404],
      shape: false,
    });
    cases.push({ area, target: `${base[area]}/\u0001\u007f`, statuses: [400, 404], shape: false });
  }
  cases.push({
    area: 'archive',
    target: `/archive/metadata/x?x=${'a'.repeat(70 * 1024)}`,
    statuses: [431],
    shape: false,
  });

  it(`answers ${cases.length} long and malformed URLs with a 4xx, in the area's shape when mockyard answers`, async () => {
    await app.listen({ host: '127.0.0.1', port: 0 });
    const port = (app.server.address() as { port: number }).port;
    const summary = emptySummary();
    for (const c of cases) {
      const res = await rawRequest(port, c.target);
      summary.perArea[c.area]++;
      summary.statuses[`${String(res.status)[0]}xx`] = (summary.statuses[`${String(res.status)[0]}xx`] ?? 0) + 1;
      const req = { area: c.area, operationId: '-', url: String(c.target).slice(0, 120), headers: {} };
      if (!c.statuses.includes(res.status))
        summary.failures.push({
          invariant: res.status >= 500 ? 'no-5xx' : 'error-shape',
          request: req,
          status: res.status,
          detail: `expected ${c.statuses.join('/')}`,
        });
      else if (c.shape && res.status >= 400) {
        const problem = errorShapeProblem(c.area, { statusCode: res.status, headers: res.headers, body: res.body });
        if (problem)
          summary.failures.push({ invariant: 'error-shape', request: req, status: res.status, detail: problem });
      }
    }
    const health = await rawRequest(port, '/__mockyard/health');
    expect(health.status).toBe(200);
    report('fuzz (real socket)', summary);
  });
});
