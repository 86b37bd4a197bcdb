// What the benchmark's runner and its workloads share: the context a workload runs in, its rows and goals.
import type { Config } from '../src/config.js';
import type { FixtureStore } from '../src/platform/data/fixture-store.js';
import type { LoadResult, RssParts } from './lib.js';

export interface BenchContext {
  dataDir: string;
  scale: 1 | 10;
  url: string;
  /** The same fixture database the server under test opened (read-only). */
  store: FixtureStore;
  config: Config;
  /** How many distinct requests of the DKAN mix to send. */
  dkanShapes: number;
  measureDownload(path: string): Promise<{ bytes: number; seconds: number; peakRssGrowthMiB: number }>;
}

/**
 * replay-http / replay-fastify: mockyard's own answers, captured from the running server, served byte for byte
 * by a bare node:http server and a bare Fastify route. fastify-sqlite: Fastify + better-sqlite3 running the SQL
 * mockyard runs for each request.
 */
export type BaselineKind = 'replay-http' | 'replay-fastify' | 'fastify-sqlite';
export const BASELINE_LABEL: Record<BaselineKind, string> = {
  'replay-http': 'node:http',
  'replay-fastify': 'Fastify',
  'fastify-sqlite': 'same SQL',
};

export interface Row {
  workload: string;
  connections: number | null;
  rps: number | null;
  p50: number | null;
  p99: number | null;
  /** Baseline req/s and mockyard's ratio to it, measured in the same rounds. */
  baselines: Partial<Record<BaselineKind, { rps: number; ratio: number }>>;
  rssMiB: number | null;
  note: string;
}

export interface CheckArgs {
  connections: number;
  result: LoadResult;
  ratios: Partial<Record<BaselineKind, number>>;
  rssMiB: number;
  rssParts: RssParts;
  goal(name: string, pass: boolean, value: string): void;
}

export interface CustomArgs {
  rows: Row[];
  /** The mockyard process under test. */
  pid: number;
  goal(name: string, pass: boolean, value: string): void;
  rss(): number;
}
