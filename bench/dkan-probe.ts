// One request at a time through the DKAN query mix: per-shape latency, slowest first (no answer cache).
// The server is mockyard's command as users start it (the launchers' Node flags and environment, pinned
// like every server of the bench), in a process of its own, asked over loopback HTTP: each figure is what a
// client waits for, with the server's own heap settings (src/cli.ts). In the bench's process, an app built
// in process ran under the harness's heap: its young generation grew to 16 MB and single scavenges of it
// took 17-34 ms, more than any query, and landed on whichever shape was running.
import http from 'node:http';
import { resolveConfig } from '../src/config.js';
import { FixtureStore } from '../src/platform/data/fixture-store.js';
import { dkanShapes, largestResource, type Shape } from './dkan-shapes.js';
import { getStatus, pinSelfToCore1, type Server, startMockyard } from './lib.js';

export interface ProbeResult {
  shape: Shape;
  ms: number;
  status: number;
}

/** A fresh mockyard on `dataDir` with the answer cache off, started as the bench starts its servers. */
export function startProbeServer(dataDir: string, scale: number): Promise<Server> {
  return startMockyard(['--data-dir', dataDir, '--scale', String(scale), '--dkan-no-cache']);
}

/**
 * Sends each shape once (after a warm-up pass over a different seed) to a fresh server of its own and
 * times it from the client: request sent to the last byte of the answer.
 */
export async function probeShapes(dataDir: string, count: number): Promise<ProbeResult[]> {
  const store = FixtureStore.open(dataDir);
  const scale = Number(store.db.prepare("SELECT value FROM mockyard_meta WHERE key = 'scale'").pluck().get() ?? 1);
  const server = await startProbeServer(dataDir, scale);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const res = largestResource(store);
    for (const s of dkanShapes(store, res, 50, 99)) await getStatus(agent, `${server.url}${s.path}`);
    const out: ProbeResult[] = [];
    for (const shape of dkanShapes(store, res, count)) {
      const started = process.hrtime.bigint();
      const status = await getStatus(agent, `${server.url}${shape.path}`);
      out.push({ shape, ms: Number(process.hrtime.bigint() - started) / 1e6, status });
    }
    return out;
  } finally {
    agent.destroy();
    await server.stop();
    store.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  pinSelfToCore1();
  const dataDir = process.argv[2] ?? resolveConfig({}, {}).dataDir;
  const results = await probeShapes(dataDir, Number(process.argv[3] ?? 300));
  results.sort((a, b) => b.ms - a.ms);
  const ms = results.map((r) => r.ms).sort((a, b) => a - b);
  const pct = (p: number) => ms[Math.min(ms.length - 1, Math.floor(p * ms.length))]!.toFixed(2);
  console.log(
    `${results.length} shapes: median ${pct(0.5)} ms, p90 ${pct(0.9)} ms, p99 ${pct(0.99)} ms, max ${pct(1)} ms`,
  );
  const bad = results.filter((r) => r.status !== 200);
  if (bad.length)
    console.log(
      `non-200: ${bad.length}`,
      bad.slice(0, 5).map((b) => `${b.status} ${b.shape.path}`),
    );
  for (const r of results.slice(0, Number(process.argv[4] ?? 15)))
    console.log(
      `${r.ms.toFixed(1)} ms ${r.shape.family} sort=${r.shape.sort} ${decodeURIComponent(r.shape.path.split('?')[1]!)}`,
    );
}
