// npm run bench: mockyard against baselines measured in the same run, as ratios with pass/fail per goal.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { resolveConfig } from '../src/config.js';
import { packageRoot } from '../src/paths.js';
import { ensureFixtures } from '../src/server.js';
import { FixtureStore } from '../src/platform/data/fixture-store.js';
import type { ProbeResult } from './dkan-probe.js';
import { measure, shapeProbeRow, type MeasureRun } from './measure.js';
import {
  type Server,
  wrkVersion,
  median,
  pinSelfToCore1,
  rssMiB,
  spawnNode,
  LAUNCH_FLAGS,
  MOCKYARD_CLI,
  startMockyard,
  waitReady,
  hasTaskset,
  timeNode,
  type TimedRun,
} from './lib.js';
import { download } from './download.js';
import {
  type BaselineKind,
  type BenchContext,
  type Row,
  type Workload,
  BASELINE_LABEL,
  finalGoals,
  prepare,
  workloads,
} from './workloads.js';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '10,100' },
    only: { type: 'string' },
    quick: { type: 'boolean', default: false },
    'startup-runs': { type: 'string' },
    rounds: { type: 'string', default: '3' },
    'dkan-shapes': { type: 'string', default: '300' },
    'node-flags': { type: 'string', default: LAUNCH_FLAGS.join(' ') },
    help: { type: 'boolean', default: false },
  },
});

if (args.help) {
  console.log(`npm run bench -- [options]
  --duration <s>        seconds per load run (default 5)
  --connections <list>  connection counts (default 10,100)
  --only <list>         workload ids or prefixes (e.g. E,B-national,startup); default all
  --quick               1 s runs at 10 connections, 1 round, 50 DKAN shapes, no warm-up runs and
                        no scale-10 workloads: a smoke run
  --startup-runs <n>    spawns per startup median (default 5; 2 with --quick)
  --rounds <n>          mockyard/baseline runs alternated per figure; medians are reported (default 3)
  --dkan-shapes <n>     distinct requests in the DKAN query mix (default 300)
  --node-flags <flags>  Node's flags for mockyard's server (default: the launchers' own, ${LAUNCH_FLAGS.join(' ')};
                        '' for none)
Throughput figures come from wrk (Debian: apt-get install -y wrk), pinned to core 1; servers run on core 0.`);
  process.exit(0);
}

const root = packageRoot();
const dist = path.join(root, 'dist');
const nodeFlags = args['node-flags']!.split(' ').filter(Boolean);
const baselineScript = path.join(dist, 'bench', 'baseline-server.js');
const duration = args.quick ? 1 : Number(args.duration);
const connectionsList = (args.quick ? '10' : args.connections).split(',').map(Number);
const rounds = args.quick ? 1 : Math.max(1, Number(args.rounds));
const shapeCount = args.quick ? 50 : Math.max(1, Number(args['dkan-shapes']));
const only = args.only?.split(',').map((s) => s.trim());
const selected = (id: string) => !only || only.some((o) => id === o || id.startsWith(`${o}-`) || id.startsWith(o));

interface Goal {
  goal: string;
  value: string;
  pass: boolean;
}
const rows: Row[] = [];
/** The DKAN mix one request at a time, per workload, for goals that compare workloads. */
const shapeProbes = new Map<string, ProbeResult[]>();
const goals: Goal[] = [];

function goal(name: string, pass: boolean, value: string): void {
  goals.push({ goal: name, pass, value });
}

function startServer(dataDir: string, extra: string[] = []): Promise<Server> {
  return startMockyard(['--data-dir', dataDir, ...extra], nodeFlags);
}

async function startBaseline(kind: BaselineKind, ...params: string[]): Promise<Server> {
  const child = spawnNode([baselineScript, kind, ...params]);
  return waitReady(child, /ready (\d+)/, (m) => `http://127.0.0.1:${m[1]}`);
}

const tmp = mkdtempSync(path.join(os.tmpdir(), 'mockyard-bench-'));
const measureRun: MeasureRun = {
  quick: Boolean(args.quick),
  rounds,
  duration,
  connections: connectionsList,
  tmp,
  rows,
  goal,
  shapeProbes,
  startBaseline,
  tmpFile,
};
let fileCounter = 0;
function tmpFile(content: string | Buffer): string {
  const file = path.join(tmp, `f${fileCounter++}`);
  writeFileSync(file, content);
  return file;
}

async function startupFigures(dataDir: string): Promise<void> {
  const runs = Math.max(1, Number(args['startup-runs'] ?? (args.quick ? 2 : 5)));
  const spawnToFirst200 = async (start: () => Promise<Server>, probePath: string) => {
    const t0 = process.hrtime.bigint();
    const server = await start();
    for (;;) {
      const res = await fetch(`${server.url}${probePath}`).catch(() => undefined);
      if (res?.status === 200) break;
    }
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    await server.stop();
    return ms;
  };
  const mockMs: number[] = [];
  const baseMs: number[] = [];
  const planFile = tmpFile(
    JSON.stringify({
      '/': { statements: ["SELECT json_object('status', 'ok') FROM mockyard_meta LIMIT 1"], params: [[]] },
    }),
  );
  for (let i = 0; i < runs; i++) {
    mockMs.push(await spawnToFirst200(() => startServer(dataDir), '/__mockyard/health'));
    baseMs.push(
      await spawnToFirst200(() => startBaseline('fastify-sqlite', path.join(dataDir, 'mockyard.db'), planFile), '/'),
    );
  }
  const m = median(mockMs);
  const b = median(baseMs);
  rows.push({
    workload: 'startup',
    connections: null,
    rps: null,
    p50: m,
    p99: null,
    baselines: {},
    rssMiB: null,
    note: `to first 200, median of ${runs}: ${m.toFixed(0)} ms vs ${b.toFixed(0)} ms for Fastify + better-sqlite3 (${(m / b).toFixed(2)}x)`,
  });
  goal(
    'startup to first 200 <= 1.3x bare Fastify + better-sqlite3',
    m / b <= 1.3,
    `${(m / b).toFixed(2)}x (${m.toFixed(0)} / ${b.toFixed(0)} ms)`,
  );
  goal('start to first answer on a built database <= 250 ms', m <= 250, `${m.toFixed(0)} ms`);
}

/**
 * A fixture build from scratch as a user runs it: `mockyard fixtures` in a process of its own, on every
 * core (SQLite sorts index keys on helper threads), timed from spawn to exit, with the CPU it used. The
 * figure is the median of `runs` builds (one build of the default database swung by 1.5 s on this shared
 * machine), each into an empty folder.
 */
async function buildFigure(scale: 1 | 10, limit: number, runs: number): Promise<void> {
  const dir = path.join(tmp, `build-${scale}`);
  const all: TimedRun[] = [];
  for (let i = 0; i < runs; i++) {
    rmSync(dir, { recursive: true, force: true });
    all.push(await timeNode([MOCKYARD_CLI, 'fixtures', '--data-dir', dir, '--scale', String(scale)]));
  }
  const run = all.sort((a, b) => a.seconds - b.seconds)[Math.floor((all.length - 1) / 2)]!;
  const cpu = (s: number | null) => (s === null ? '?' : s.toFixed(2));
  rows.push({
    workload: `build (scale ${scale})`,
    connections: null,
    rps: null,
    p50: null,
    p99: null,
    baselines: {},
    rssMiB: null,
    note: `fixture database built in ${run.seconds.toFixed(2)} s (${runs > 1 ? `median of ${runs}: ${all.map((r) => r.seconds.toFixed(2)).join(', ')} s; ` : ''}${cpu(run.user)} s user, ${cpu(run.system)} s system; issue 26 baseline: 11 s / 84 s with 8 s / 57 s system)`,
  });
  goal(`scale ${scale} fixture database builds in <= ${limit} s`, run.seconds <= limit, `${run.seconds.toFixed(2)} s`);
  rmSync(dir, { recursive: true, force: true });
}

function fmt(n: number | null, digits = 0): string {
  return n === null || Number.isNaN(n) ? '' : n.toFixed(digits);
}

const KINDS: BaselineKind[] = ['replay-http', 'replay-fastify', 'fastify-sqlite'];

function printTable(): void {
  const header = [
    'workload',
    'conn',
    'req/s',
    'p50 ms',
    'p99 ms',
    ...KINDS.flatMap((k) => [`${BASELINE_LABEL[k]} req/s`, 'ratio']),
    'RSS MiB',
    'note',
  ];
  const body = rows.map((r) => [
    r.workload,
    fmt(r.connections),
    fmt(r.rps),
    fmt(r.p50, 2),
    fmt(r.p99, 2),
    ...KINDS.flatMap((k) => [
      fmt(r.baselines[k]?.rps ?? null),
      fmt(r.baselines[k]?.ratio ?? null, r.baselines[k] && r.baselines[k].ratio < 0.1 ? 4 : 2),
    ]),
    fmt(r.rssMiB, 0),
    r.note,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  console.log(`\n${line(header)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}`);
  for (const row of body) console.log(line(row));
  console.log('\ngoals:');
  for (const g of goals) console.log(`  ${g.pass ? 'PASS' : 'FAIL'}  ${g.goal}: ${g.value}`);
}

async function main(): Promise<void> {
  pinSelfToCore1();
  const started = Date.now();
  console.log(
    `mockyard bench: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}), node ${process.version}, ${hasTaskset ? 'servers on core 0, wrk on core 1' : 'no taskset: unpinned'}; ${duration}s per run, ${rounds} rounds, at ${connectionsList.join(',')} connections, ${shapeCount} DKAN shapes`,
  );
  const scale1 = resolveConfig({ logLevel: 'silent' }, {});
  await ensureFixtures(scale1, (m) => console.log(`  ${m}`));
  const needScale10 = !args.quick && workloads.some((w) => w.scale === 10 && selected(w.id));
  const scale10Dir = path.join(root, 'bench', 'results', 'data-scale10');
  if (needScale10) {
    console.log('preparing the scale-10 fixture database (reused across runs) ...');
    await ensureFixtures(resolveConfig({ logLevel: 'silent', scale: 10, dataDir: scale10Dir }, {}), (m) =>
      console.log(`  ${m}`),
    );
  }

  const elapsed = () => `[${((Date.now() - started) / 1000).toFixed(0)} s]`;
  if (selected('build')) {
    console.log(`${elapsed()} build: the default fixture database, from scratch`);
    await buildFigure(1, 4, args.quick ? 1 : 3);
    if (!args.quick) await buildFigure(10, 30, 1);
  }
  if (selected('startup')) {
    console.log(`${elapsed()} startup: mockyard and Fastify + better-sqlite3, spawn to first 200`);
    await startupFigures(scale1.dataDir);
  }

  // One mockyard per (scale, server options): workloads that need other options get their own process.
  const groups = new Map<string, Workload[]>();
  for (const w of workloads) {
    if (!selected(w.id) || (args.quick && w.scale === 10)) continue;
    const key = JSON.stringify([w.scale ?? 1, w.serverArgs ?? [], w.isolated ? w.id : '']);
    groups.set(key, [...(groups.get(key) ?? []), w]);
  }
  for (const [key, list] of groups) {
    const [scale, serverArgs] = JSON.parse(key) as [1 | 10, string[], string];
    const dataDir = scale === 1 ? scale1.dataDir : scale10Dir;
    const mock = await startServer(dataDir, ['--scale', String(scale), ...serverArgs]);
    const store = FixtureStore.open(dataDir);
    await prepare(mock.url);
    const ctx: BenchContext = {
      dataDir,
      scale,
      url: mock.url,
      store,
      config: resolveConfig({ dataDir, scale, logLevel: 'silent' }, {}),
      dkanShapes: shapeCount,
      measureDownload: (p) => download(`${mock.url}${p}`, mock.child.pid),
    };
    try {
      for (const w of list) {
        console.log(
          `${elapsed()} ${w.id}: ${w.title}${serverArgs.length ? ` (mockyard ${serverArgs.join(' ')})` : ''}`,
        );
        if (w.custom) await w.custom(ctx, { rows, goal, pid: mock.child.pid!, rss: () => rssMiB(mock.child.pid) });
        else await measure(measureRun, ctx, mock, w);
      }
    } finally {
      store.close();
      await mock.stop();
    }
    // One request at a time from a fresh server, with the loaded one gone (shapeProbeRow says why).
    for (const w of list) if (w.shapeProbe) measureRun.rows.push(await shapeProbeRow(measureRun, ctx, w.id));
  }

  finalGoals(shapeProbes, goal);
  printTable();
  const out = path.join(root, 'bench', 'results');
  mkdirSync(out, { recursive: true });
  const file = path.join(out, `bench-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(
    file,
    `${JSON.stringify({ node: process.version, cpus: os.cpus().length, model: os.cpus()[0]?.model, loadGenerator: wrkVersion(), duration, rounds, connections: connectionsList, dkanShapes: shapeCount, seconds: (Date.now() - started) / 1000, rows, goals }, null, 2)}\n`,
  );
  console.log(`\nresults: ${path.relative(root, file)} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  rmSync(tmp, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  rmSync(tmp, { recursive: true, force: true });
  process.exit(1);
});
