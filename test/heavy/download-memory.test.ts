// 1,000 parallel downloads of a 1 MiB file from slow readers: each stream holds a bounded buffer, so the
// server's peak resident memory stays at or under 300 MB.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, peakRssMiB, probeHealth, sleep, startCli, type Cli } from './helpers.js';

let server: Cli;
beforeAll(async () => {
  server = await startCli();
});
afterAll(() => server?.stop());

const PARALLEL = 1000;
const MiB = 1024 * 1024;

/** One download whose reader waits `pauseMs` before reading, so the server must hold what it has read ahead. */
function slowDownload(url: string, agent: http.Agent, pauseMs: number): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (res) => {
        let bytes = 0;
        res.pause();
        setTimeout(() => {
          res.on('data', (c: Buffer) => (bytes += c.length));
          res.on('end', () => resolve({ status: res.statusCode!, bytes }));
          res.resume();
        }, pauseMs);
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

describe.skipIf(process.platform !== 'linux')('1,000 parallel 1 MiB downloads', () => {
  it('peak resident memory of the server stays at or under 300 MB', { timeout: 180_000 }, async () => {
    const catalog = JSON.parse((await get(`${server.url}/__mockyard/fixtures`)).body.toString()) as {
      archive: { items: { identifier: string; files: string[]; status: string }[] };
    };
    // The largest file at scale 1 is a 1 MiB video; find it by its size.
    let target: { url: string; size: number } | undefined;
    for (const item of catalog.archive.items.filter((i) => i.status === 'ok')) {
      const meta = JSON.parse((await get(`${server.url}/archive/metadata/${item.identifier}`)).body.toString()) as {
        files: { name: string; size?: string }[];
      };
      for (const f of meta.files) {
        const size = Number(f.size ?? 0);
        if (size >= MiB && (!target || size > target.size))
          target = { url: `${server.url}/archive/download/${item.identifier}/${encodeURIComponent(f.name)}`, size };
      }
    }
    expect(target, 'a file of at least 1 MiB in the fixtures').toBeDefined();

    const pid = server.child.pid!;
    const before = peakRssMiB(pid);
    const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
    const probe = probeHealth(server.url, 50);
    const results = await Promise.all(
      Array.from({ length: PARALLEL }, (_, i) => slowDownload(target!.url, agent, 1000 + (i % 10) * 100)),
    );
    await sleep(200);
    const { latencies } = await probe.stop();
    agent.destroy();
    const peak = peakRssMiB(pid);
    console.log(
      `download memory: peak RSS before ${before.toFixed(0)} MiB, after ${PARALLEL} downloads ${peak.toFixed(0)} MiB; health longest ${Math.max(...latencies).toFixed(0)} ms`,
    );

    expect(results.every((r) => r.status === 200 && r.bytes === target!.size)).toBe(true);
    expect(peak * MiB).toBeLessThanOrEqual(300 * 1000 * 1000);
  });
});
