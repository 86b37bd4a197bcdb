// Issue 27's certificate attack on a real process: 1,000 CONNECTs to distinct archive.org names at once (from a
// client process of their own), while a client polls health. Certificates are issued in a process of their own
// with a bounded queue, and tunnels set up their TLS one per event-loop turn, so health stays within 100 ms and
// memory stays bounded; a name past the queue gets 503 with Retry-After, never a stalled tunnel.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeHealth, sleep, startCli, type Cli } from './helpers.js';

const BURST = fileURLToPath(new URL('./tunnel-burst.mjs', import.meta.url));

let server: Cli;
let caDir: string;
beforeAll(async () => {
  caDir = mkdtempSync(path.join(os.tmpdir(), 'mockyard-heavy-ca-'));
  server = await startCli(['--ca-dir', caDir]);
});
afterAll(async () => {
  await server?.stop();
  rmSync(caDir, { recursive: true, force: true });
});

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m![1]) / 1024;
}

/** The tunnels of `names` at once, from a process of their own (tunnel-burst.mjs); their statuses in order. */
function burst(port: number, names: string[]): Promise<string[]> {
  const namesFile = path.join(caDir, 'names.json');
  writeFileSync(namesFile, JSON.stringify(names));
  return new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      [BURST, String(port), path.join(caDir, 'mockyard-ca.pem'), namesFile],
      { maxBuffer: 1 << 20 },
      (err, stdout) => (err ? reject(err) : resolve(JSON.parse(stdout) as string[])),
    ),
  );
}

describe('1,000 CONNECTs to distinct archive.org names', () => {
  it('keep health within 100 ms and memory bounded', { timeout: 300_000 }, async () => {
    const port = Number(new URL(server.url).port);
    // Warm up: the certificate thread and TLS once, so that lazy start-up work is not counted.
    expect(await burst(port, ['warm.archive.org'])).toEqual(['200']);
    await sleep(1000);
    const before = rssMiB(server.child.pid!);
    const probe = probeHealth(server.url, 25);
    // Half share one wildcard (*.archive.org); half need a certificate each (*.dN.archive.org).
    const names = Array.from({ length: 1000 }, (_, i) => (i % 2 ? `n${i}.archive.org` : `n${i}.d${i}.archive.org`));
    const statuses = await burst(port, names);
    const during = rssMiB(server.child.pid!);
    const { latencies, failures } = await probe.stop();
    const count = (s: string) => statuses.filter((x) => x === s).length;
    console.log(
      `proxy certificates: ${count('200')} tunnels, ${count('503')} busy; RSS before ${before.toFixed(0)} MiB, ` +
        `after ${during.toFixed(0)} MiB; health longest ${Math.max(...latencies).toFixed(0)} ms over ${latencies.length} probes`,
    );
    expect(statuses.filter((s) => s !== '200' && s !== '503')).toEqual([]);
    // Every name under the shared wildcard is served.
    expect(statuses.filter((s, i) => i % 2 === 1 && s !== '200')).toEqual([]);
    expect(failures).toEqual([]);
    expect(Math.max(...latencies)).toBeLessThan(100);
    expect(during - before).toBeLessThan(64);
    // The server still issues once the burst is over.
    expect(await burst(port, ['later.d1.archive.org'])).toEqual(['200']);
  });
});
