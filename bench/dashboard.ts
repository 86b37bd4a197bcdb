// The dashboard's cost: cached throughput with a live journal stream open (as a dashboard tab holds it)
// against the same load with none, alternating rounds, medians.
import { load, median } from './lib.js';
import type { CustomArgs } from './types.js';

/** Opens /__mockyard/live and reads it to the end, as a dashboard tab does; returns a closer and a byte count. */
function liveReader(url: string): { close(): void; bytes(): number } {
  const controller = new AbortController();
  let bytes = 0;
  void fetch(`${url}/__mockyard/live`, { signal: controller.signal })
    .then(async (res) => {
      for await (const chunk of res.body as AsyncIterable<Uint8Array>) bytes += chunk.byteLength;
    })
    .catch(() => undefined);
  return { close: () => controller.abort(), bytes: () => bytes };
}

export async function dashboardLive(
  url: string,
  path: string,
  duration: number,
  connections: number,
  { rows, goal }: Pick<CustomArgs, 'rows' | 'goal'>,
): Promise<void> {
  await load(url, [path], connections, 1);
  const without: number[] = [];
  const withLive: number[] = [];
  let streamed = 0;
  for (let round = 0; round < 3; round++) {
    without.push((await load(url, [path], connections, duration)).rps);
    const reader = liveReader(url);
    withLive.push((await load(url, [path], connections, duration)).rps);
    streamed += reader.bytes();
    reader.close();
  }
  const ratio = median(withLive) / median(without);
  rows.push({
    workload: 'dashboard-live',
    connections,
    rps: median(withLive),
    p50: null,
    p99: null,
    baselines: {},
    rssMiB: null,
    note: `B national with a live dashboard stream open: ${ratio.toFixed(2)}x without (${median(without).toFixed(0)} req/s); ${(streamed / 1e6).toFixed(1)} MB streamed`,
  });
  goal('cached throughput with the dashboard live >= 0.9x without', ratio >= 0.9, `${ratio.toFixed(2)}x`);
}
