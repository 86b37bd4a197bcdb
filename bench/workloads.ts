// What the benchmark runs: one entry per workload, with its baseline and the goals it reports.
import type { Config } from '../src/config.js';
import type { FixtureStore } from '../src/platform/fixture-store.js';
import { BENCHMARK_WORKLOAD, benchmarkPath, benchmarkValues, sqlForRequest } from '../src/areas/dkan/index.js';
import type { LoadResult } from './lib.js';
import { scenarioCreation, scenarioSpeed } from './scenarios.js';

export interface BenchContext {
  dataDir: string;
  scale: 1 | 10;
  url: string;
  /** The same fixture database the server under test opened (read-only). */
  store: FixtureStore;
  config: Config;
  measureDownload(path: string): Promise<{ bytes: number; seconds: number; peakRssGrowthMiB: number }>;
}

export interface CheckArgs {
  connections: number;
  result: LoadResult;
  ratio: number | null;
  rssMiB: number;
  rssParts: { anon: number; file: number };
  goal(name: string, pass: boolean, value: string): void;
}

export interface CustomArgs {
  rows: { workload: string; connections: number | null; rps: number | null; p50: number | null; p99: number | null; baseline: string | null; baselineRps: number | null; ratio: number | null; rssMiB: number | null; note: string }[];
  goal(name: string, pass: boolean, value: string): void;
  rss(): number;
}

export interface Workload {
  id: string;
  title: string;
  /** Fixture scale the workload runs on (default 1). */
  scale?: 1 | 10;
  baseline?: 'http-buffer' | 'fastify-buffer' | 'fastify-sqlite';
  /** Extra mockyard flags; workloads with other flags run against their own server process. */
  serverArgs?: string[];
  headers?(): Record<string, string>;
  /** Also measure sequential per-request latency (sub-millisecond), before the load runs. */
  latencyProbe?: boolean;
  /** Run against a fresh server process of its own (memory figures untouched by other workloads). */
  isolated?: boolean;
  paths(ctx: BenchContext): string[];
  /** For the fastify-sqlite baseline: the statements the area runs, and their bound values per path. */
  sql?(ctx: BenchContext, paths: string[]): { statements: string[]; params: unknown[][][] };
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
const releasesPath = () => `/appcenter/v0.1/apps/${appcenter().app.owner}/${appcenter().app.app}/releases?published_only=true&top=20`;
const stringsPath = '/agco/api/v2/StringDefinitions?includeTranslations=true&descriptionText=*speed*&limit=10';
const authHeaders = () => ({ 'x-api-token': appcenter().token, authorization: `Bearer ${cat().agco.tokens[0]}` });

/** DKAN's distinct-query workload: one equality condition, a sort, limit=100&offset=200, values varying. */
function dkanDistinct(id: string, title: string, index: number, scale: 1 | 10): Workload {
  return {
    id,
    title,
    scale,
    // Every request a new query: the answer cache would turn repeats into buffer copies.
    serverArgs: ['--dkan-cache-size', '0'],
    baseline: 'fastify-sqlite',
    latencyProbe: true,
    paths: (ctx) => benchmarkValues(ctx.store, index).map((v) => `/dkan${benchmarkPath(v, index)}`),
    sql: (ctx, paths) => {
      const plans = paths.map((p) => sqlForRequest(ctx.store, ctx.config, p.replace(/^\/dkan/, '')));
      return { statements: [plans[0]!.rowsSql, plans[0]!.countSql], params: plans.map((p) => [p.rowsParams, p.countParams]) };
    },
    check: ({ connections, result, ratio, goal }) => {
      if (id !== 'E-distinct-100k' || connections !== 10 || ratio === null) return;
      goal('E distinct queries >= 1.0x bare Fastify + better-sqlite3 (same SQL)', ratio >= 1.0, `${ratio.toFixed(2)}x`);
      goal('E distinct queries p99 <= 10 ms at 10 connections', result.p99 <= 10, `${result.p99} ms`);
    },
  };
}

const atLeast = (name: string, min: number) => ({ connections, ratio, goal }: CheckArgs) => {
  if (ratio !== null && connections === 10) goal(name, ratio >= min, `${ratio.toFixed(2)}x at 10 connections`);
};

export const workloads: Workload[] = [
  { id: 'B-national', title: 'MarketCheck national ranking', baseline: 'fastify-buffer', paths: () => [B('')], check: atLeast('B national ranking >= 0.8x bare Fastify with the same JSON', 0.8) },
  { id: 'B-state', title: 'MarketCheck state ranking', baseline: 'fastify-buffer', paths: () => [B('&state=TX')], check: atLeast('B state ranking >= 0.8x bare Fastify with the same JSON', 0.8) },
  { id: 'B-city', title: 'MarketCheck city ranking', baseline: 'fastify-buffer', paths: () => [B(`&city_state=${encodeURIComponent(cat().marketcheck.cities[0]!)}`)], check: atLeast('B city ranking >= 0.8x bare Fastify with the same JSON', 0.8) },
  { id: 'C-releases', title: 'App Center releases, published_only + top', baseline: 'fastify-buffer', headers: authHeaders, paths: () => [releasesPath()] },
  { id: 'D-strings', title: 'AGCO definitions with translations and a wildcard', baseline: 'fastify-buffer', headers: authHeaders, paths: () => [stringsPath] },
  dkanDistinct('E-distinct-100k', 'DKAN filter + sort + page, distinct values, 100,000 rows', BENCHMARK_WORKLOAD.largeIndex, 1),
  dkanDistinct('E-distinct-10k', 'DKAN filter + sort + page, distinct values, 10,000 rows', BENCHMARK_WORKLOAD.smallIndex, 1),
  dkanDistinct('E-distinct-1M', 'DKAN filter + sort + page, distinct values, 1,000,000 rows (scale 10)', BENCHMARK_WORKLOAD.largeIndex, 10),
  {
    id: 'E-repeated',
    title: 'DKAN the same query again and again (answer cache)',
    baseline: 'http-buffer',
    paths: (ctx) => [`/dkan${benchmarkPath(benchmarkValues(ctx.store)[0]!)}`],
    check: atLeast('E repeated identical queries >= 0.7x bare node:http with the same buffer', 0.7),
  },
  { id: 'A-metadata', title: 'Internet Archive item metadata', baseline: 'fastify-buffer', paths: () => [`/archive/metadata/${okItems()[0]!.identifier}`] },
  { id: 'A-download-1MB', title: 'Internet Archive 1 MiB download', baseline: 'fastify-buffer', paths: () => [fileOf('_512kb.mp4')] },
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
      if (best.bytes !== 1024 ** 3) throw new Error(`${p} answered ${best.bytes} bytes, not 1 GiB: is the scale-10 database built?`);
      const gbps = best.bytes / best.seconds / 1e9;
      const growth = Math.max(...runs.map((r) => r.peakRssGrowthMiB));
      rows.push({ workload: 'A-download-1GiB', connections: 1, rps: null, p50: null, p99: null, baseline: null, baselineRps: null, ratio: null, rssMiB: null, note: `${gbps.toFixed(2)} GB/s, RSS growth ${growth.toFixed(1)} MiB (${best.bytes} bytes)` });
      goal('1 GiB download >= 1 GB/s', gbps >= 1, `${gbps.toFixed(2)} GB/s`);
      goal('1 GiB download grows RSS by <= 30 MB', growth * 1.048576 <= 30, `${(growth * 1.048576).toFixed(1)} MB`);
    },
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
    id: 'mixed',
    title: 'mixed load over all areas',
    isolated: true,
    headers: authHeaders,
    paths: (ctx) => [
      B(''),
      B('&state=CA'),
      releasesPath(),
      stringsPath,
      `/archive/metadata/${okItems()[1]!.identifier}`,
      fileOf('.txt'),
      ...benchmarkValues(ctx.store).slice(0, 20).map((v) => `/dkan${benchmarkPath(v)}`),
    ],
    check: ({ connections, rssMiB, rssParts, goal }) => {
      goal(`resident memory after the mixed load (${connections} connections) <= 120 MB`, rssMiB * 1.048576 <= 120, `${(rssMiB * 1.048576).toFixed(0)} MB (anonymous ${(rssParts.anon * 1.048576).toFixed(0)} MB, mapped files ${(rssParts.file * 1.048576).toFixed(0)} MB)`);
    },
  },
];

/** Goals that compare workloads with each other, once all have run (sequential medians, ms). */
export function finalGoals(probes: ReadonlyMap<string, { median: number; p99: number }>, goal: CustomArgs['goal']): void {
  const small = probes.get('E-distinct-10k')?.median;
  const large = probes.get('E-distinct-1M')?.median;
  if (small !== undefined && large !== undefined) {
    goal('E at 1,000,000 rows: median latency <= 2x the 10,000-row median', large <= 2 * small, `${large.toFixed(2)} ms vs ${small.toFixed(2)} ms (${(large / small).toFixed(2)}x)`);
  }
}
