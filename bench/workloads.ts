// What the benchmark runs: one entry per workload, with its baseline and the goals it reports.
import type { LoadResult } from './lib.js';

export interface BenchContext {
  dataDir: string;
  scale: 1 | 10;
  url: string;
  measureDownload(path: string): Promise<{ bytes: number; seconds: number; peakRssGrowthMiB: number }>;
}

export interface CheckArgs {
  connections: number;
  result: LoadResult;
  ratio: number | null;
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
  headers?: Record<string, string>;
  paths(ctx: BenchContext): string[];
  /** For the fastify-sqlite baseline: the same SQL the area runs and one parameter set per path. */
  sql?(ctx: BenchContext): { sql: string; params: unknown[] };
  check?(args: CheckArgs): void;
  custom?(ctx: BenchContext, args: CustomArgs): Promise<void>;
}

export const workloads: Workload[] = [];
