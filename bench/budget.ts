// The work budget from outside: four over-budget DKAN joins at once, a cheap uncached query and the health
// route beside them, and the CPU the server's processes use once the joins were answered.
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { largestResource } from './dkan-shapes.js';
import type { BenchContext, CustomArgs } from './types.js';

export const BUDGET_MS = 1000;

/** The two resources with the most row pairs the join bound allows, joined on `<>` and counted: seconds of work. */
function heavyPath(ctx: BenchContext): string {
  const db = ctx.store.db;
  const [a, b] = db
    .prepare(
      `SELECT x.distribution_id AS a, y.distribution_id AS b FROM dkan_resources x JOIN dkan_resources y
       ON x.distribution_id < y.distribution_id WHERE x.row_count * y.row_count <= 50000000
       ORDER BY x.row_count * y.row_count DESC LIMIT 1`,
    )
    .raw()
    .get() as [string, string];
  const column = (id: string) =>
    db.prepare('SELECT name FROM dkan_columns WHERE distribution_id = ? ORDER BY position LIMIT 1').pluck().get(id);
  const q = [
    `resources[0][id]=${a}&resources[0][alias]=a&resources[1][id]=${b}&resources[1][alias]=b`,
    `joins[0][resource]=b&joins[0][condition][resource]=a&joins[0][condition][property]=${column(a)}`,
    `joins[0][condition][operator]=${encodeURIComponent('<>')}`,
    `joins[0][condition][value][resource]=b&joins[0][condition][value][property]=${column(b)}`,
    'count=true&limit=1',
  ].join('&');
  return `/dkan/datastore/query?${q}`;
}

async function timed(url: string): Promise<{ ms: number; status: number; retryAfter: string | null }> {
  const t0 = performance.now();
  const res = await fetch(url);
  await res.arrayBuffer();
  return { ms: performance.now() - t0, status: res.status, retryAfter: res.headers.get('retry-after') };
}

/** Seconds since boot (Linux), the clock of a process's start time in /proc. */
const uptime = (): number => Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]);

/** CPU seconds (user + system) by pid of a process and its children started by `startedBy` (seconds since boot). */
function cpuByPid(pid: number, startedBy: number): Map<number, number> {
  let pids = [pid];
  try {
    pids = pids.concat(
      execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
        .split('\n')
        .filter(Boolean)
        .map(Number),
    );
  } catch {
    // no children
  }
  const out = new Map<number, number>();
  for (const p of pids) {
    try {
      const fields = readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]!.split(' ');
      if (Number(fields[19]) / 100 > startedBy) continue;
      out.set(p, (Number(fields[11]) + Number(fields[12])) / 100);
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** CPU used between two samples by the processes in both (one that ended used none after it ended). */
function cpuBetween(a: Map<number, number>, b: Map<number, number>): number {
  let sum = 0;
  for (const [p, cpu] of b) if (a.has(p)) sum += cpu - a.get(p)!;
  return sum;
}

export async function budgetFigures(ctx: BenchContext, { rows, goal, pid }: CustomArgs): Promise<void> {
  const heavy = `${ctx.url}${heavyPath(ctx)}`;
  const largest = largestResource(ctx.store);
  const health = `${ctx.url}/__mockyard/health`;
  let watching = true;
  let worstHealth = 0;
  const watcher = (async () => {
    while (watching) worstHealth = Math.max(worstHealth, (await timed(health)).ms);
  })();
  await new Promise((resolve) => setTimeout(resolve, 200));
  // Only processes started before the joins can run them: later ones replace stopped ones, and their start
  // is not the stopped queries' CPU.
  const sentAt = uptime();
  const heavies = Array.from({ length: 4 }, () => timed(heavy));
  await new Promise((resolve) => setTimeout(resolve, 200));
  // Uncached: an offset no other request used.
  const cheap = await timed(
    `${ctx.url}/dkan/datastore/query/${largest.datasetId}/${largest.index}?limit=1&offset=4321`,
  );
  const answered = await Promise.all(heavies);
  watching = false;
  await watcher;
  // A statement that kept running would burn on past the first second.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const cpuAt = cpuByPid(pid, sentAt);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const cpuAfter = cpuBetween(cpuAt, cpuByPid(pid, sentAt));
  const slowest = Math.max(...answered.map((a) => a.ms));
  const statuses = [...new Set(answered.map((a) => a.status))].join(',');
  rows.push({
    workload: 'budget',
    connections: 4,
    rps: null,
    p50: null,
    p99: null,
    baselines: {},
    rssMiB: null,
    note: `4 joins over a ${BUDGET_MS} ms budget answered ${statuses} in <= ${slowest.toFixed(0)} ms; a cheap query beside them ${cheap.status} in ${cheap.ms.toFixed(0)} ms; health at worst ${worstHealth.toFixed(0)} ms; CPU from 1 s to 2 s after: ${(cpuAfter * 1000).toFixed(0)} ms`,
  });
  goal(
    `an over-budget query is answered (and stopped) within budget + 250 ms (${BUDGET_MS} ms budget)`,
    slowest <= BUDGET_MS + 250 && answered.every((a) => a.status === 400 || a.status === 503),
    `${slowest.toFixed(0)} ms, status ${statuses}`,
  );
  goal(
    'no CPU used by stopped queries (server and its query processes from before the joins, 1 s to 2 s after the answers)',
    cpuAfter <= 0.05,
    `${(cpuAfter * 1000).toFixed(0)} ms of CPU`,
  );
  goal(
    'a cheap uncached query answers 200 within 1 s while four over-budget queries run',
    cheap.status === 200 && cheap.ms <= 1000,
    `${cheap.status} in ${cheap.ms.toFixed(0)} ms`,
  );
  goal(
    'no request delays GET /__mockyard/health by more than 100 ms',
    worstHealth <= 100,
    `${worstHealth.toFixed(0)} ms`,
  );
}
