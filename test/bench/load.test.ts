// The benchmark's load generator and capture: wrk sends every path of the list with the workload's headers, and
// a captured answer is replayed with the same status, headers and bytes. Not timed: speed goals live in bench/.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capture, readCapture, writeCapture } from '../../bench/capture.js';
import { download } from '../../bench/download.js';
import { load } from '../../bench/lib.js';

const hasWrk = !spawnSync('wrk', ['-v']).error;
const dir = mkdtempSync(path.join(os.tmpdir(), 'mockyard-bench-test-'));
const seen = new Map<string, number>();
const headersSeen = new Set<string>();
const server = http.createServer((req, res) => {
  seen.set(req.url!, (seen.get(req.url!) ?? 0) + 1);
  headersSeen.add(String(req.headers['x-api-token']));
  if (req.url === '/missing') {
    res.writeHead(404).end();
    return;
  }
  if (req.url === '/big') {
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    // 3 MiB in 64 KiB writes: a stream of many chunks, read to its end by the client process.
    for (let i = 0; i < 48; i++) res.write(Buffer.alloc(64 * 1024, i));
    res.end();
    return;
  }
  if (req.url === '/broken') {
    // A download that breaks off: part of a long body, then the connection closes.
    res.writeHead(200, { 'content-length': String(1024 * 1024) });
    res.write(Buffer.alloc(1024), () => res.destroy());
    return;
  }
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('x-total-count', '2');
  // Written in two pieces without a length: a chunked answer.
  res.write('{"url":');
  res.end(`${JSON.stringify(req.url)}}`);
});
let base = '';

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

const paths = [
  '/a?x=1',
  '/b%20c',
  '/dkan/q?sorts[0][property]=x&conditions[0][operator]=not%20in&conditions[0][value][1]=%C3%A9',
];
const headers = { 'x-api-token': 'tok"en\\1', authorization: 'Bearer abc' };

describe.skipIf(!hasWrk && !process.env.CI)('wrk through the benchmark script', () => {
  it('cycles through every path with the workload headers and reports throughput and percentiles', async () => {
    seen.clear();
    headersSeen.clear();
    const result = await load(base, paths, 2, 1, headers, dir);
    expect([...seen.keys()].sort()).toEqual([...paths].sort());
    for (const p of paths) expect(seen.get(p)!).toBeGreaterThan(0);
    expect([...headersSeen]).toEqual([headers['x-api-token']]);
    const total = [...seen.values()].reduce((a, b) => a + b, 0);
    expect(result.rps).toBeGreaterThan(0);
    expect(result.rps).toBeLessThanOrEqual(total * 1.5);
    expect(result.p50).toBeGreaterThan(0);
    expect(result.p99).toBeGreaterThanOrEqual(result.p50);
    expect(result.non2xx).toBe(0);
    expect(result.errors).toBe(0);
  });

  it('counts answers that are not 2xx', async () => {
    const result = await load(base, ['/a?x=1', '/missing'], 1, 1, {}, dir);
    expect(result.non2xx).toBeGreaterThan(0);
  });
});

describe('captured answers', () => {
  it('keep status, headers and bytes, less the per-connection headers, with the body length', async () => {
    const answers = await capture(base, [...paths, '/missing', paths[0]!], headers);
    expect([...answers.keys()]).toEqual([...paths, '/missing']);
    const first = answers.get(paths[0]!)!;
    expect(first.status).toBe(200);
    expect(first.body.toString()).toBe(`{"url":${JSON.stringify(paths[0])}}`);
    expect(first.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(first.headers['x-total-count']).toBe('2');
    expect(first.headers['content-length']).toBe(String(first.body.length));
    for (const name of ['date', 'connection', 'keep-alive', 'transfer-encoding'])
      expect(first.headers).not.toHaveProperty(name);
    expect(answers.get('/missing')!.status).toBe(404);

    const file = path.join(dir, 'capture');
    writeCapture(file, answers);
    expect(readCapture(file)).toEqual(answers);
  });
});

describe('a download (bench/download-client.ts, built by npm test)', () => {
  it('is read to its end by a client process of its own, with its bytes, seconds and the server RSS growth', async () => {
    const result = await download(`${base}/big`, process.pid);
    expect(result.bytes).toBe(3 * 1024 * 1024);
    expect(result.seconds).toBeGreaterThan(0);
    expect(Number.isFinite(result.peakRssGrowthMiB)).toBe(true);
  });

  it('fails when the answer breaks off before its end', async () => {
    await expect(download(`${base}/broken`, undefined)).rejects.toThrow(/exited with 1: download-client: aborted/);
  });
});
