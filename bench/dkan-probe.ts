// One request at a time through the DKAN query mix: per-shape latency, slowest first (no answer cache).
import { buildApp } from '../src/app.js';
import { resolveConfig } from '../src/config.js';
import { FixtureStore } from '../src/platform/data/fixture-store.js';
import { Stores } from '../src/platform/data/stores.js';
import { dkanShapes, largestResource, type Shape } from './dkan-shapes.js';

export interface ProbeResult {
  shape: Shape;
  ms: number;
  status: number;
}

/** Sends each shape once (after a warm-up pass over a different seed) and times it. */
export async function probeShapes(dataDir: string, count: number): Promise<ProbeResult[]> {
  const config = resolveConfig({ logLevel: 'silent', dataDir, dkanCacheSize: 0 }, {});
  const stores = new Stores(FixtureStore.open(dataDir));
  const app = await buildApp(config, stores);
  try {
    const res = largestResource(stores.current);
    for (const s of dkanShapes(stores.current, res, 50, 99)) await app.inject(s.path);
    const out: ProbeResult[] = [];
    for (const shape of dkanShapes(stores.current, res, count)) {
      const started = process.hrtime.bigint();
      const r = await app.inject(shape.path);
      out.push({ shape, ms: Number(process.hrtime.bigint() - started) / 1e6, status: r.statusCode });
    }
    return out;
  } finally {
    await app.close();
    stores.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
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
