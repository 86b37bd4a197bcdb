// Process, load and measurement helpers for the benchmark.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import autocannon from 'autocannon';

export const hasTaskset = spawnSync('taskset', ['-V']).status === 0;

/** Runs a node script pinned to core 0 (the load generator keeps core 1). */
export function spawnNode(args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  const [cmd, argv] = hasTaskset ? ['taskset', ['-c', '0', process.execPath, ...args]] : [process.execPath, args];
  return spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
}

export function pinSelfToCore1(): void {
  if (hasTaskset) spawnSync('taskset', ['-p', '-c', '1', String(process.pid)], { stdio: 'ignore' });
}

export interface Server {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Waits for a line matching `ready` on stdout, which carries the URL or port. */
export function waitReady(child: ChildProcess, pattern: RegExp, toUrl: (m: RegExpExecArray) => string, timeoutMs = 60_000): Promise<Server> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`server did not start in ${timeoutMs} ms: ${out}${err}`)), timeoutMs);
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

export function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 5000).unref();
  });
}

/** Resident memory of a process, split into anonymous memory and mapped files (binary, libraries, mmap'd database). */
export function rssParts(pid: number | undefined): { anon: number; file: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) / 1024;
    return { anon: kb('RssAnon'), file: kb('RssFile') + kb('RssShmem') };
  } catch {
    return { anon: NaN, file: NaN };
  }
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

/** autocannon against base + the given paths (cycled, so distinct queries stay distinct). */
export async function load(base: string, paths: readonly string[], connections: number, durationSec: number, headers: Record<string, string> = {}): Promise<LoadResult> {
  let i = 0;
  const result = await autocannon({
    url: base,
    connections,
    duration: durationSec,
    headers,
    requests: [{ setupRequest: (req) => ({ ...req, path: paths[i++ % paths.length]! }) }],
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    bytesPerSec: result.throughput.average,
  };
}

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export async function fetchBody(url: string, headers: Record<string, string> = {}): Promise<{ status: number; type: string; body: Buffer }> {
  const res = await fetch(url, { headers });
  return { status: res.status, type: res.headers.get('content-type') ?? 'application/octet-stream', body: Buffer.from(await res.arrayBuffer()) };
}

/** Streams one download and returns bytes/second and the server's peak RSS growth while it ran. */
export function download(url: string, serverPid: number | undefined): Promise<{ bytes: number; seconds: number; peakRssGrowthMiB: number }> {
  return new Promise((resolve, reject) => {
    const before = rssMiB(serverPid);
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssMiB(serverPid));
    }, 50);
    const started = process.hrtime.bigint();
    http
      .get(url, (res) => {
        let bytes = 0;
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
        });
        res.on('end', () => {
          clearInterval(sampler);
          peak = Math.max(peak, rssMiB(serverPid));
          resolve({ bytes, seconds: Number(process.hrtime.bigint() - started) / 1e9, peakRssGrowthMiB: peak - before });
        });
        res.on('error', reject);
      })
      .on('error', (err) => {
        clearInterval(sampler);
        reject(err);
      });
  });
}

/** One request at a time over a kept-alive connection: per-request latency with sub-millisecond resolution. */
export async function sequentialLatency(base: string, paths: readonly string[], count: number, headers: Record<string, string> = {}): Promise<{ median: number; p99: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const times: number[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const started = process.hrtime.bigint();
      await new Promise<void>((resolve, reject) => {
        http
          .get(`${base}${paths[i % paths.length]}`, { agent, headers }, (res) => {
            res.on('data', () => {});
            res.on('end', () => resolve());
            res.on('error', reject);
          })
          .on('error', reject);
      });
      times.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
  } finally {
    agent.destroy();
  }
  times.sort((a, b) => a - b);
  return { median: median(times), p99: times[Math.min(times.length - 1, Math.floor(times.length * 0.99))]! };
}
