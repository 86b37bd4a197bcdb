// A real mockyard process and clients on their own connections, for the timing and memory suites in test/heavy.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { Worker } from 'node:worker_threads';

export { cli, startCli, stallMonitor, type Cli } from '../helpers/cli.js';

export interface Result {
  status: number;
  body: Buffer;
}

export function get(
  url: string,
  headers: Record<string, string> = {},
  agent: http.Agent | false = false,
): Promise<Result> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

export interface HealthProbe {
  stop(): Promise<{ latencies: number[]; failures: string[] }>;
}

// On its own thread, so the test's own busy event loop (1,000 clients, big bodies) does not add to what it measures.
const PROBE = `
const http = require('node:http');
const { parentPort, workerData } = require('node:worker_threads');
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const state = { latencies: [], failures: [] };
let pending = 0;
const timer = setInterval(() => {
  const t0 = process.hrtime.bigint();
  pending++;
  http.get(workerData.url + '/__mockyard/health', { agent }, (res) => {
    res.resume();
    res.on('end', () => {
      pending--;
      if (res.statusCode === 200) state.latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
      else state.failures.push('status ' + res.statusCode);
    });
  }).on('error', (e) => { pending--; state.failures.push(e.code || e.message); });
}, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  const finish = () => (pending > 0 ? setTimeout(finish, 10) : (agent.destroy(), parentPort.postMessage(state)));
  finish();
});
`;

/** GET /__mockyard/health every `intervalMs` on one keep-alive connection; each answer's latency in ms. */
export function probeHealth(url: string, intervalMs = 50): HealthProbe {
  const worker = new Worker(PROBE, { eval: true, workerData: { url, intervalMs } });
  return {
    stop: () =>
      new Promise((resolve) => {
        worker.once('message', (r: { latencies: number[]; failures: string[] }) => {
          void worker.terminate();
          resolve(r);
        });
        worker.postMessage('stop');
      }),
  };
}

/** Peak resident memory (VmHWM) of a process in MiB, from Linux's /proc. */
export function peakRssMiB(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error('no VmHWM in /proc status');
  return Number(m[1]) / 1024;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
