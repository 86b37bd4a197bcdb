// The Docker HEALTHCHECK script works on any port, including those fetch() refuses.
import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startMockyard } from '../../src/index.js';
import { packageRoot } from '../../src/paths.js';

const script = path.join(packageRoot(), 'scripts', 'healthcheck.cjs');
// Ports on the Fetch standard's "bad ports" list that are free to listen on here.
const BLOCKED_BY_FETCH = [5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6697, 10080];

async function freeBlockedPort(): Promise<number> {
  for (const port of BLOCKED_BY_FETCH) {
    const free = await new Promise<boolean>((resolve) => {
      const s = createServer().once('error', () => resolve(false));
      s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error(`none of ${BLOCKED_BY_FETCH.join(', ')} is free`);
}

// Asynchronous: the server under test runs in this process and must keep answering.
const probe = (port: number) =>
  new Promise<number | null>((resolve) => {
    const child = execFile(process.execPath, [script], {
      env: { ...process.env, MOCKYARD_PORT: String(port) },
      timeout: 10_000,
    });
    child.on('exit', (code) => resolve(code));
  });

describe('healthcheck.cjs', () => {
  it('is healthy on a port that fetch() refuses, and unhealthy once the server is gone', async () => {
    const port = await freeBlockedPort();
    const running = await startMockyard({ port });
    try {
      await expect(fetch(`${running.url}/__mockyard/health`)).rejects.toThrow();
      expect(await probe(port)).toBe(0);
    } finally {
      await running.close();
    }
    expect(await probe(port)).toBe(1);
  });
});
