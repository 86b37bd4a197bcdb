// One workload measured: its answers captured from mockyard, the baselines started on them, then mockyard
// and the baselines alternately under wrk at each connection count, with medians and per-round ratios.
import path from 'node:path';
import { capture, captureOne, writeCapture } from './capture.js';
import { type ProbeResult, probeShapes } from './dkan-probe.js';
import { type LoadResult, type Server, load, median, rssMiB, rssParts, sequentialLatency } from './lib.js';
import { type BaselineKind, type BenchContext, type Row, type Workload, BASELINE_LABEL } from './workloads.js';

type Answers = Awaited<ReturnType<typeof capture>>;

/** What the runner lends a measurement: its options, where results go, and how servers start. */
export interface MeasureRun {
  quick: boolean;
  rounds: number;
  duration: number;
  connections: number[];
  /** The folder wrk's scripts go to. */
  tmp: string;
  rows: Row[];
  goal: (name: string, pass: boolean, value: string) => void;
  shapeProbes: Map<string, ProbeResult[]>;
  startBaseline: (kind: BaselineKind, ...params: string[]) => Promise<Server>;
  tmpFile: (content: string | Buffer) => string;
}

/** One workload: mockyard and its baselines alternately at each connection count, all sent the same requests. */
export async function measure(run: MeasureRun, ctx: BenchContext, mock: Server, w: Workload): Promise<void> {
  const paths = w.paths(ctx);
  const headers = w.headers?.() ?? {};
  const answers = await capture(mock.url, paths, headers);
  const failed = [...answers.values()].filter((a) => a.status >= 400);
  if (failed.length === answers.size || failed.some((a) => a.status >= 500)) {
    const [url, a] = [...answers].find(([, x]) => x.status >= 400)!;
    throw new Error(`${w.id}: ${url} answered ${a.status}: ${a.body.subarray(0, 300).toString()}`);
  }
  const baselines: [BaselineKind, Server][] = [];
  try {
    await startBaselines(run, ctx, w, paths, answers, baselines);
    await checkReplays(w, paths, headers, answers, baselines);
    if (w.latencyProbe) run.rows.push(await latencyRow(run, mock, w.id, paths, headers));
    for (const connections of run.connections) {
      const s = { mock, w, paths, headers, failed: failed.length, answers: answers.size };
      await measureAt(run, s, baselines, connections);
    }
  } finally {
    for (const [, server] of baselines) await server.stop();
  }
}

/** The workload's baselines, on the captured answers (replays) or on the SQL mockyard's planner gives. */
async function startBaselines(
  run: MeasureRun,
  ctx: BenchContext,
  w: Workload,
  paths: string[],
  answers: Answers,
  into: [BaselineKind, Server][],
): Promise<void> {
  const captureFile = run.tmpFile('');
  writeCapture(captureFile, answers);
  const kinds = (w.baselines ?? []).filter((kind) => kind !== 'fastify-sqlite' || w.sql);
  const started = await Promise.allSettled(
    kinds.map((kind) =>
      kind === 'fastify-sqlite'
        ? run.startBaseline(
            kind,
            path.join(ctx.dataDir, 'mockyard.db'),
            run.tmpFile(JSON.stringify(w.sql!(ctx, paths))),
          )
        : run.startBaseline(kind, captureFile),
    ),
  );
  started.forEach((r, k) => r.status === 'fulfilled' && into.push([kinds[k]!, r.value]));
  const failedStart = started.find((r) => r.status === 'rejected');
  if (failedStart) throw failedStart.reason;
}

/** The replay baselines must answer what mockyard answered, byte for byte, or the ratio means nothing. */
async function checkReplays(
  w: Workload,
  paths: string[],
  headers: Record<string, string>,
  answers: Answers,
  baselines: [BaselineKind, Server][],
): Promise<void> {
  for (const [kind, server] of baselines) {
    if (kind === 'fastify-sqlite') continue;
    const replayed = await captureOne(server.url, paths[0]!, headers);
    const original = answers.get(paths[0]!)!;
    if (
      replayed.status !== original.status ||
      !replayed.body.equals(original.body) ||
      replayed.headers['content-type'] !== original.headers['content-type']
    ) {
      throw new Error(`${w.id}: the ${BASELINE_LABEL[kind]} baseline does not replay mockyard's answer to ${paths[0]}`);
    }
  }
}

/** One request at a time over a kept-alive connection: the latency of one answer without queueing. */
async function latencyRow(
  run: MeasureRun,
  mock: Server,
  id: string,
  paths: string[],
  headers: Record<string, string>,
): Promise<Row> {
  await sequentialLatency(mock.url, paths, run.quick ? 50 : 200, headers);
  const probe = await sequentialLatency(mock.url, paths, run.quick ? 200 : 1000, headers);
  return {
    workload: `${id} (1 at a time)`,
    connections: 1,
    rps: 1000 / probe.median,
    p50: probe.median,
    p99: probe.p99,
    baselines: {},
    rssMiB: null,
    note: 'sequential requests over HTTP',
  };
}

interface Subject {
  mock: Server;
  w: Workload;
  paths: string[];
  headers: Record<string, string>;
  /** Of the captured answers, how many were 4xx, and how many in all. */
  failed: number;
  answers: number;
}

/** Mockyard and each baseline alternately, `rounds` times, at one connection count: a row and its goals. */
async function measureAt(
  run: MeasureRun,
  { mock, w, paths, headers, failed, answers }: Subject,
  baselines: [BaselineKind, Server][],
  connections: number,
): Promise<void> {
  const loadOn = (url: string, seconds: number) => load(url, paths, connections, seconds, headers, run.tmp);
  if (!run.quick) {
    await loadOn(mock.url, 1); // warm-up
    for (const [, server] of baselines) await loadOn(server.url, 1);
  }
  // Alternate the servers and keep medians: single runs on a shared machine drift.
  const ms: LoadResult[] = [];
  const bs = new Map<BaselineKind, LoadResult[]>(baselines.map(([kind]) => [kind, []]));
  for (let round = 0; round < run.rounds; round++) {
    ms.push(await loadOn(mock.url, run.duration));
    for (const [kind, server] of baselines) bs.get(kind)!.push(await loadOn(server.url, run.duration));
  }
  const m = medianResult(ms);
  const ratios: Partial<Record<BaselineKind, number>> = {};
  const row: Row = {
    workload: w.id,
    connections,
    rps: m.rps,
    p50: m.p50,
    p99: m.p99,
    baselines: {},
    rssMiB: rssMiB(mock.child.pid),
    note: '',
  };
  const notes: string[] = [];
  if (failed) notes.push(`${failed} of ${answers} requests answer 4xx`);
  if (m.errors || m.non2xx) notes.push(`${m.errors} errors, ${m.non2xx} non-2xx`);
  for (const [kind, results] of bs) {
    const b = medianResult(results);
    // Each round's ratio from runs next to each other in time, then their median: the machine's speed
    // drifts between rounds (other tenants of the host), less within one.
    const ratio = median(results.map((r, round) => ms[round]!.rps / r.rps));
    ratios[kind] = ratio;
    row.baselines[kind] = { rps: b.rps, ratio };
    if (b.errors || (b.non2xx && !failed))
      notes.push(`${BASELINE_LABEL[kind]}: ${b.errors} errors, ${b.non2xx} non-2xx`);
  }
  if (run.rounds > 1) notes.push(`median of ${run.rounds}`);
  row.note = notes.join('; ');
  run.rows.push(row);
  const rss = { rssMiB: rssMiB(mock.child.pid), rssParts: rssParts(mock.child.pid) };
  w.check?.({ connections, result: m, ratios, ...rss, goal: run.goal });
}

/**
 * The DKAN mix one request at a time, each shape once (kept for the goals that compare workloads), on a fresh
 * server of its own. The caller runs it once the server the workload loaded has stopped: at 1,000,000 rows,
 * with that server still there (idle, its five query processes holding about 2 GB of caches and mappings of
 * the same file), the fresh server's first queries on a column spent 25-40 ms more of system time (slowest
 * shape 43-53 ms, against 18-25 ms with it stopped; docs/performance.md).
 */
export async function shapeProbeRow(run: MeasureRun, ctx: BenchContext, id: string): Promise<Row> {
  const results = await probeShapes(ctx.dataDir, ctx.dkanShapes);
  run.shapeProbes.set(id, results);
  const ms = results.map((r) => r.ms).sort((a, b) => a - b);
  const slowest = results.reduce((a, b) => (b.ms > a.ms ? b : a));
  const non200 = results.filter((r) => r.status !== 200).length;
  return {
    workload: `${id} (1 at a time)`,
    connections: 1,
    rps: null,
    p50: median(ms),
    p99: ms[Math.min(ms.length - 1, Math.floor(ms.length * 0.99))]!,
    baselines: {},
    rssMiB: null,
    note: `each of ${results.length} shapes once, from a fresh server (the command as users start it); slowest ${slowest.ms.toFixed(1)} ms (${slowest.shape.family}, sort ${slowest.shape.sort})${non200 ? `; ${non200} non-200` : ''}`,
  };
}

export function medianResult(results: LoadResult[]): LoadResult {
  const pick = (k: keyof LoadResult) => median(results.map((r) => r[k]));
  return {
    rps: pick('rps'),
    p50: pick('p50'),
    p99: pick('p99'),
    errors: results.reduce((a, r) => a + r.errors, 0),
    non2xx: results.reduce((a, r) => a + r.non2xx, 0),
    bytesPerSec: pick('bytesPerSec'),
  };
}
