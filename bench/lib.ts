// Process, load and measurement helpers for the benchmark.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { packageRoot } from '../src/paths.js';

export const hasTaskset = spawnSync('taskset', ['-V']).status === 0;

/**
 * Node's flags as mockyard's launchers give them to the server (`npm start`, the image's ENTRYPOINT, the
 * command's #! line; src/cli.ts says why, test/platform/launchers.test.ts keeps them equal), so the bench
 * measures what users run.
 */
export const LAUNCH_FLAGS = ['--no-allocation-site-pretenuring', '--no-memory-reducer', '--single-threaded-gc'];
/** The environment the command's #! line and the image give the server (src/cli.ts says why). */
export const LAUNCH_ENV: Record<string, string> = {
  MALLOC_ARENA_MAX: '2',
  MALLOC_MMAP_THRESHOLD_: '1048576',
  MALLOC_TRIM_THRESHOLD_: '1048576',
};

/** mockyard's bundled command, as `npm install` gives it to users. */
export const MOCKYARD_CLI = path.join(packageRoot(), 'dist', 'bundle', 'cli.js');

/**
 * mockyard's command started as users start it (Node's `flags`, the launchers' environment), pinned like
 * every server of the bench, on a free port; resolves once it says it is ready.
 */
export function startMockyard(args: string[], flags: readonly string[] = LAUNCH_FLAGS): Promise<Server> {
  const child = spawnNode([...flags, MOCKYARD_CLI, '--port', '0', '--log-level', 'warn', ...args], LAUNCH_ENV);
  return waitReady(child, /ready at (http:\/\/\S+)/, (m) => m[1]!);
}

/** Runs a node script pinned to core 0 (the load generator keeps core 1). */
export function spawnNode(args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  const [cmd, argv] = hasTaskset ? ['taskset', ['-c', '0', process.execPath, ...args]] : [process.execPath, args];
  return spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
}

/**
 * Pins this process to core 1, every thread of it (`-a`): without it only the main thread moves, and V8's
 * collector threads and libuv's pool keep running on core 0 beside the server. Threads started later
 * inherit the main thread's cores.
 */
export function pinSelfToCore1(): void {
  if (hasTaskset) spawnSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)], { stdio: 'ignore' });
}

/** Clock ticks per second of /proc's CPU times (USER_HZ), 100 where getconf cannot say. */
const clockTicks = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;

/**
 * User and system CPU seconds of this process's children that have exited and been waited for (cutime and
 * cstime in /proc/self/stat, proc(5)): a child's whole run, its helper threads included. Null without /proc.
 */
function childrenCpu(): { user: number; system: number } | null {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces: state is field 3.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { user: Number(fields[16 - 3]) / clockTicks, system: Number(fields[17 - 3]) / clockTicks };
  } catch {
    return null;
  }
}

export interface TimedRun {
  /** Wall clock from spawn to exit. */
  seconds: number;
  /** The child's CPU seconds (null where /proc is missing). */
  user: number | null;
  system: number | null;
}

/**
 * Runs a node script to its exit on every core, as a user's shell would (this process may be pinned, and
 * a child inherits its pin), timing the wall clock and the CPU the child used. Rejects on a non-zero exit.
 */
export function timeNode(args: string[]): Promise<TimedRun> {
  const cores = `0-${os.availableParallelism() - 1}`;
  const [cmd, argv] = hasTaskset ? ['taskset', ['-c', cores, process.execPath, ...args]] : [process.execPath, args];
  const cpuBefore = childrenCpu();
  const started = process.hrtime.bigint();
  const child = spawn(cmd, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (c: Buffer) => {
    err += c.toString();
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      if (code !== 0) return reject(new Error(`${args.join(' ')} exited with ${code}: ${err}`));
      const cpuAfter = childrenCpu();
      const used = (key: 'user' | 'system') =>
        cpuBefore && cpuAfter ? Number((cpuAfter[key] - cpuBefore[key]).toFixed(2)) : null;
      resolve({ seconds, user: used('user'), system: used('system') });
    });
  });
}

export interface Server {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Waits for a line matching `ready` on stdout, which carries the URL or port. */
export function waitReady(
  child: ChildProcess,
  pattern: RegExp,
  toUrl: (m: RegExpExecArray) => string,
  timeoutMs = 60_000,
): Promise<Server> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(
      () => reject(new Error(`server did not start in ${timeoutMs} ms: ${out}${err}`)),
      timeoutMs,
    );
    child.stderr?.on('data', (c: Buffer) => {
      err += c.toString();
    });
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      const m = pattern.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ url: toUrl(m), child, stop: () => stop(child) });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}: ${out}${err}`));
    });
  });
}

/**
 * Stops a server and waits for its own child processes (mockyard's query processes) to be gone too: they exit
 * when the server's channel closes, and a server's processes holding gigabytes at 1,000,000 rows still
 * unmapping them would share the core with whatever the bench starts next.
 */
export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const children = childPids(child.pid);
  await new Promise<void>((resolve) => {
    child.removeAllListeners('exit');
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 5000).unref();
  });
  for (let waited = 0; waited < 5000 && children.some((pid) => existsSync(`/proc/${pid}`)); waited += 20)
    await new Promise((resolve) => setTimeout(resolve, 20));
}

/** The process ids of a process's children (Linux /proc; none elsewhere). */
function childPids(pid: number | undefined): number[] {
  if (!pid) return [];
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number),
    );
  } catch {
    return [];
  }
}

export interface RssParts {
  anon: number;
  file: number;
  /** The process's children (query child processes), which its own figure does not count. */
  children: { count: number; mib: number };
}

/**
 * Resident memory of a process, split into anonymous memory and mapped files (binary, libraries, mmap'd
 * database), with its child processes' total beside it.
 */
export function rssParts(pid: number | undefined): RssParts {
  const children = childrenRssMiB(pid);
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) / 1024;
    return { anon: kb('RssAnon'), file: kb('RssFile') + kb('RssShmem'), children };
  } catch {
    return { anon: NaN, file: NaN, children };
  }
}

/** Resident memory of a process's child processes, MiB. */
function childrenRssMiB(pid: number | undefined): { count: number; mib: number } {
  if (!pid) return { count: 0, mib: NaN };
  if (!existsSync(`/proc/${pid}`)) return { count: 0, mib: NaN };
  const children = childPids(pid);
  return { count: children.length, mib: children.reduce((sum, child) => sum + (rssMiB(child) || 0), 0) };
}

export function rssMiB(pid: number | undefined): number {
  if (!pid) return NaN;
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  bytesPerSec: number;
}

const WRK_REPORT = 'mockyard-wrk-report ';

/** A Lua string literal for any byte string (decimal escapes for everything outside printable ASCII). */
function luaString(text: string): string {
  return `"${[...Buffer.from(text)].map((b) => (b >= 0x20 && b < 0x7f && b !== 0x22 && b !== 0x5c ? String.fromCharCode(b) : `\\${String(b).padStart(3, '0')}`)).join('')}"`;
}

/**
 * A wrk script: requests formatted once, then cycled (so distinct queries stay distinct), with the workload's
 * headers; at the end one line of JSON with the exact counts and latency percentiles (microseconds).
 */
export function wrkScript(paths: readonly string[], headers: Record<string, string>): string {
  const headerTable = `{ ${Object.entries(headers)
    .map(([k, v]) => `[${luaString(k)}] = ${luaString(v)}`)
    .join(', ')} }`;
  return `local paths = { ${paths.map(luaString).join(',\n')} }
local requests = {}
local i = 0
function init(args)
  for k, p in ipairs(paths) do
    local h = ${headerTable}
    requests[k] = wrk.format("GET", p, h)
  end
end
function request()
  i = i % #requests + 1
  return requests[i]
end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('${WRK_REPORT}{"requests":%d,"duration":%d,"bytes":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"p50":%d,"p90":%d,"p99":%d,"max":%d}\\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
`;
}

/** wrk's version line, e.g. "wrk debian/4.1.0-3+b2 [epoll]", or null when it is not installed. */
export function wrkVersion(): string | null {
  const r = spawnSync('wrk', ['-v'], { encoding: 'utf8' });
  return r.error ? null : (/^wrk .*$/m.exec(`${r.stdout}${r.stderr}`)?.[0]?.replace(/\s*Copyright.*$/, '') ?? 'wrk');
}

let wrkChecked = false;
function requireWrk(): void {
  if (wrkChecked) return;
  if (spawnSync('wrk', ['-v']).error)
    throw new Error('wrk is not installed: the benchmark measures throughput with it (Debian: apt-get install -y wrk)');
  wrkChecked = true;
}

/**
 * wrk (one thread, pinned to core 1) against base + the given paths, cycled. Requests/s, and latency
 * percentiles as wrk records them (--latency; microsecond resolution, reported in ms).
 */
export async function load(
  base: string,
  paths: readonly string[],
  connections: number,
  durationSec: number,
  headers: Record<string, string> = {},
  scriptDir = os.tmpdir(),
): Promise<LoadResult> {
  requireWrk();
  const script = path.join(scriptDir, `wrk-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}.lua`);
  writeFileSync(script, wrkScript(paths, headers));
  const args = [
    '-t',
    '1',
    '-c',
    String(connections),
    '-d',
    `${durationSec}s`,
    '--timeout',
    '10s',
    '--latency',
    '-s',
    script,
    base,
  ];
  const [cmd, argv] = hasTaskset ? ['taskset', ['-c', '1', 'wrk', ...args]] : ['wrk', args];
  try {
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.on('error', reject);
      child.on('exit', (code) =>
        code === 0 ? resolve(stdout) : reject(new Error(`wrk exited with ${code}: ${stderr}${stdout}`)),
      );
    });
    return parseWrk(out);
  } finally {
    rmSync(script, { force: true });
  }
}

/** Reads wrk's output: the script's JSON line for exact figures, and wrk's own Requests/sec and non-2xx line. */
export function parseWrk(out: string): LoadResult {
  const line = out.split('\n').find((l) => l.startsWith(WRK_REPORT));
  if (!line) throw new Error(`wrk printed no report:\n${out}`);
  const r = JSON.parse(line.slice(WRK_REPORT.length)) as Record<string, number>;
  const seconds = r.duration! / 1e6;
  const perSec = /Requests\/sec:\s+([\d.]+)/.exec(out);
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  return {
    rps: perSec ? Number(perSec[1]) : r.requests! / seconds,
    p50: r.p50! / 1000,
    p99: r.p99! / 1000,
    errors: r.connect! + r.read! + r.write! + r.timeout!,
    non2xx,
    bytesPerSec: r.bytes! / seconds,
  };
}

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** A GET on `agent`, its body read to the end: resolves with the status. */
export function getStatus(agent: http.Agent, url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent, headers }, (res) => {
        res.on('data', () => {});
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

/** One request at a time over a kept-alive connection: per-request latency with sub-millisecond resolution. */
export async function sequentialLatency(
  base: string,
  paths: readonly string[],
  count: number,
  headers: Record<string, string> = {},
): Promise<{ median: number; p99: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const times: number[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const started = process.hrtime.bigint();
      await getStatus(agent, `${base}${paths[i % paths.length]}`, headers);
      times.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
  } finally {
    agent.destroy();
  }
  times.sort((a, b) => a - b);
  return { median: median(times), p99: times[Math.min(times.length - 1, Math.floor(times.length * 0.99))]! };
}
