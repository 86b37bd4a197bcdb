// What the benchmark runs: one entry per workload, with its baselines and the goals it reports.
import { dkanShapes, largestResource, sqlForRequest } from './dkan-shapes.js';
import type { ProbeResult } from './dkan-probe.js';
import { median } from './lib.js';
import type { BaselineKind, BenchContext, CheckArgs, CustomArgs } from './types.js';
import { BUDGET_MS, budgetFigures } from './budget.js';
import { scenarioCreation, scenarioSpeed } from './scenarios.js';
import { STUB_MAPPINGS, STUB_PATH, stubMappingsDir } from './stubs.js';
import { dashboardLive } from './dashboard.js';

export { BASELINE_LABEL, type BaselineKind, type BenchContext, type CustomArgs, type Row } from './types.js';

export interface Workload {
  id: string;
  title: string;
  /** Fixture scale the workload runs on (default 1). */
  scale?: 1 | 10;
  baselines?: BaselineKind[];
  /** Extra mockyard flags; workloads with other flags run against their own server process. */
  serverArgs?: string[];
  headers?(): Record<string, string>;
  /** Also measure sequential per-request latency over HTTP, before the load runs. */
  latencyProbe?: boolean;
  /** Also time each DKAN shape once, one request at a time (bench/dkan-probe.ts), after the load runs. */
  shapeProbe?: boolean;
  /** Run against a fresh server process of its own (memory figures untouched by other workloads). */
  isolated?: boolean;
  paths(ctx: BenchContext): string[];
  /** For the fastify-sqlite baseline: the statements the area runs for each URL, and their bound values. */
  sql?(ctx: BenchContext, paths: string[]): Record<string, { statements: string[]; params: unknown[][] }>;
  check?(args: CheckArgs): void;
  custom?(ctx: BenchContext, args: CustomArgs): Promise<void>;
}

interface Catalog {
  archive: { items: { identifier: string; files: string[]; status: string }[] };
  marketcheck: { apiKeys: string[]; states: Record<string, string[]>; cities: string[] };
  appcenter: { tokens: { token: string; user: string }[]; apps: { owner: string; app: string }[] };
  agco: { tokens: string[] };
}
let catalog: Catalog | undefined;
/** Fetched once before the workloads (see prepare), so paths use identifiers that exist. */
export async function prepare(url: string): Promise<void> {
  catalog = (await (await fetch(`${url}/__mockyard/fixtures`)).json()) as Catalog;
}
const cat = (): Catalog => {
  if (!catalog) throw new Error('catalog not loaded');
  return catalog;
};

const mcKey = () => cat().marketcheck.apiKeys[0]!;
const appcenter = () => ({ token: cat().appcenter.tokens[0]!.token, app: cat().appcenter.apps[0]! });
const okItems = () => cat().archive.items.filter((i) => i.status === 'ok');
const fileOf = (suffix: string) => {
  for (const item of okItems()) {
    const f = item.files.find((n) => n.endsWith(suffix));
    if (f) return `/archive/download/${item.identifier}/${f.split('/').map(encodeURIComponent).join('/')}`;
  }
  throw new Error(`no archive file ending in ${suffix}`);
};

const B = (query: string) => `/marketcheck/popular/cars?api_key=${mcKey()}&car_type=used${query}`;
const releasesPath = () =>
  `/appcenter/v0.1/apps/${appcenter().app.owner}/${appcenter().app.app}/releases?published_only=true&top=20`;
const stringsPath = '/agco/api/v2/StringDefinitions?includeTranslations=true&descriptionText=*speed*&limit=10';
const authHeaders = () => ({ 'x-api-token': appcenter().token, authorization: `Bearer ${cat().agco.tokens[0]}` });

const REPLAY: BaselineKind[] = ['replay-http', 'replay-fastify'];

/** Cached and repeated answers: at least `min` of bare node:http replaying the same bytes, at 10 connections. */
const atLeast =
  (name: string, min = 0.8) =>
  ({ connections, ratios, goal }: CheckArgs) => {
    const ratio = ratios['replay-http'];
    if (ratio !== undefined && connections === 10)
      goal(
        `${name} >= ${min}x bare node:http replaying the same bytes`,
        ratio >= min,
        `${ratio.toFixed(2)}x at 10 connections`,
      );
  };

const mixPaths = (ctx: BenchContext, count = ctx.dkanShapes) =>
  dkanShapes(ctx.store, largestResource(ctx.store), count).map((s) => s.path);
/** The repeated query: the mix's first equality filter (with its sort and page). */
const repeatedPath = (ctx: BenchContext) =>
  dkanShapes(ctx.store, largestResource(ctx.store), 14).find((s) => s.family === 'equality')!.path;

/** DKAN's mixed-shape workload: every request a distinct query of the mix, with the answer cache off. */
function dkanMix(id: string, title: string, scale: 1 | 10): Workload {
  return {
    id,
    title,
    scale,
    // Repeats of the cycled list would otherwise be served from the answer cache.
    serverArgs: ['--dkan-no-cache'],
    baselines: [...REPLAY, 'fastify-sqlite'],
    shapeProbe: true,
    paths: (ctx) => mixPaths(ctx),
    sql: (ctx, paths) =>
      Object.fromEntries(
        paths.map((p) => {
          const plan = sqlForRequest(ctx.store, ctx.config, p);
          return [p, { statements: [plan.rowsSql, plan.countSql], params: [plan.rowsParams, plan.countParams] }];
        }),
      ),
    check: ({ connections, result, ratios, goal }) => {
      const ratio = ratios['replay-http'];
      if (scale !== 1 || connections !== 10 || ratio === undefined) return;
      goal(
        'E mixed-shape distinct queries (100,000 rows) >= 0.05x bare node:http replaying the same answers',
        ratio >= 0.05,
        `${ratio.toFixed(4)}x at 10 connections`,
      );
      goal(
        'E mixed-shape distinct queries (100,000 rows) p99 <= 20 ms at 10 connections',
        // No answer in the run at all is no latency figure.
        result.rps > 0 && result.p99 <= 20,
        `${result.p99.toFixed(1)} ms`,
      );
    },
  };
}

export const workloads: Workload[] = [
  {
    id: 'S-stub',
    title: `A WireMock stub answering, ${STUB_MAPPINGS} mappings loaded`,
    get serverArgs() {
      return ['--mappings', stubMappingsDir()];
    },
    baselines: REPLAY,
    headers: () => ({ accept: 'application/json' }),
    paths: () => [STUB_PATH],
    check: atLeast(`S stub answer with ${STUB_MAPPINGS} mappings`, 0.5),
  },
  {
    id: 'B-national',
    title: 'MarketCheck national ranking',
    baselines: REPLAY,
    paths: () => [B('')],
    check: atLeast('B national ranking'),
  },
  {
    id: 'B-state',
    title: 'MarketCheck state ranking',
    baselines: REPLAY,
    paths: () => [B('&state=TX')],
    check: atLeast('B state ranking'),
  },
  {
    id: 'B-city',
    title: 'MarketCheck city ranking',
    baselines: REPLAY,
    paths: () => [B(`&city_state=${encodeURIComponent(cat().marketcheck.cities[0]!)}`)],
    check: atLeast('B city ranking'),
  },
  {
    id: 'C-releases',
    title: 'App Center releases, published_only + top',
    baselines: REPLAY,
    headers: authHeaders,
    paths: () => [releasesPath()],
    check: atLeast('C releases'),
  },
  {
    id: 'D-strings',
    title: 'AGCO definitions with translations and a wildcard',
    baselines: REPLAY,
    headers: authHeaders,
    paths: () => [stringsPath],
    check: atLeast('D definitions'),
  },
  {
    id: 'E-repeated',
    title: 'DKAN the same query again and again (answer cache)',
    baselines: REPLAY,
    latencyProbe: true,
    paths: (ctx) => [repeatedPath(ctx)],
    check: atLeast('E repeated query'),
  },
  dkanMix('E-mix-100k', 'DKAN mixed-shape distinct queries, 100,000 rows', 1),
  dkanMix('E-mix-1M', 'DKAN mixed-shape distinct queries, 1,000,000 rows (scale 10)', 10),
  {
    id: 'A-metadata',
    title: 'Internet Archive item metadata',
    baselines: REPLAY,
    paths: () => [`/archive/metadata/${okItems()[0]!.identifier}`],
    check: atLeast('A metadata'),
  },
  {
    id: 'A-download-1MB',
    title: 'Internet Archive 1 MiB download',
    baselines: REPLAY,
    paths: () => [fileOf('_512kb.mp4')],
  },
  {
    id: 'A-download-1GiB',
    title: 'Internet Archive 1 GiB download, one stream',
    scale: 10,
    paths: () => [],
    custom: async (ctx, { rows, goal }) => {
      const p = '/archive/download/mockyard-large-file/disk-image-1GiB.iso';
      await ctx.measureDownload(p); // first read warms the page cache; the goal is about mockyard, not the disk
      const runs = [await ctx.measureDownload(p), await ctx.measureDownload(p)];
      const best = runs.reduce((a, b) => (a.bytes / a.seconds > b.bytes / b.seconds ? a : b));
      if (best.bytes !== 1024 ** 3)
        throw new Error(`${p} answered ${best.bytes} bytes, not 1 GiB: is the scale-10 database built?`);
      const gbps = best.bytes / best.seconds / 1e9;
      const growth = Math.max(...runs.map((r) => r.peakRssGrowthMiB));
      rows.push({
        workload: 'A-download-1GiB',
        connections: 1,
        rps: null,
        p50: null,
        p99: null,
        baselines: {},
        rssMiB: null,
        note: `${gbps.toFixed(2)} GB/s, RSS growth ${growth.toFixed(1)} MiB (${best.bytes} bytes)`,
      });
      goal('1 GiB download >= 1 GB/s', gbps >= 1, `${gbps.toFixed(2)} GB/s`);
      goal('1 GiB download grows RSS by <= 30 MB', growth * 1.048576 <= 30, `${(growth * 1.048576).toFixed(1)} MB`);
    },
  },
  {
    id: 'budget',
    title: 'four DKAN joins over the work budget, a cheap query and the health route beside them',
    serverArgs: ['--query-timeout', String(BUDGET_MS)],
    isolated: true,
    paths: () => [],
    custom: async (ctx, args) => budgetFigures(ctx, args),
  },
  {
    id: 'S-create',
    title: 'Scenarios: creating one of 1,000 records per area',
    paths: () => [],
    custom: async (ctx, args) => scenarioCreation(ctx.url, args),
  },
  {
    id: 'S-speed',
    title: 'Scenarios: requests in a scenario vs the same requests on generated data',
    paths: () => [],
    custom: async (ctx, args) => scenarioSpeed(ctx.url, 3, 10, args),
  },
  {
    id: 'dashboard-live',
    title: 'Dashboard: cached answers with a live stream open',
    paths: () => [],
    custom: async (ctx, args) => dashboardLive(ctx.url, B(''), 3, 10, args),
  },
  {
    id: 'mixed',
    title: 'mixed load over all areas, DKAN from the query mix (default options)',
    isolated: true,
    headers: authHeaders,
    paths: (ctx) => [
      B(''),
      B('&state=CA'),
      releasesPath(),
      stringsPath,
      `/archive/metadata/${okItems()[1]!.identifier}`,
      fileOf('.txt'),
      ...mixPaths(ctx, 50),
    ],
    check: ({ connections, rssMiB, rssParts, goal }) => {
      goal(
        `resident memory after the mixed load (${connections} connections) <= 100 MB`,
        rssMiB * 1.048576 <= 100,
        // The server process only: query child processes are separate processes, shown beside it.
        `${(rssMiB * 1.048576).toFixed(0)} MB (anonymous ${(rssParts.anon * 1.048576).toFixed(0)} MB, mapped files ${(rssParts.file * 1.048576).toFixed(0)} MB); server process only, its ${rssParts.children.count} query child processes hold ${(rssParts.children.mib * 1.048576).toFixed(0)} MB more`,
      );
    },
  },
];

/** Goals that compare workloads with each other, once all have run: the mix one request at a time (ms). */
export function finalGoals(shapeProbes: ReadonlyMap<string, ProbeResult[]>, goal: CustomArgs['goal']): void {
  const small = shapeProbes.get('E-mix-100k');
  const large = shapeProbes.get('E-mix-1M');
  if (small?.length && large?.length) {
    const [a, b] = [median(small.map((r) => r.ms)), median(large.map((r) => r.ms))];
    goal(
      'E mix at 1,000,000 rows: median <= 2x the 100,000-row median (one request at a time)',
      b <= 2 * a,
      `${b.toFixed(2)} ms vs ${a.toFixed(2)} ms (${(b / a).toFixed(2)}x)`,
    );
  }
  if (large?.length) {
    const slowest = large.reduce((x, y) => (y.ms > x.ms ? y : x));
    goal(
      'E mix at 1,000,000 rows: no shape slower than 50 ms one request at a time',
      slowest.ms <= 50,
      `slowest ${slowest.ms.toFixed(1)} ms: ${slowest.shape.family}, sort ${slowest.shape.sort}`,
    );
  }
}
