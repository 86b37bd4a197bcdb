// SIGTERM under load: requests in flight finish with full bodies, new connections are refused, exit 0 within 5 s.
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startCli } from '../helpers/cli.js';
import { testApp } from '../helpers/app.js';
import { loadCatalog } from './fuzz-lib.js';

const { app, store } = await testApp();
const cat = await loadCatalog(app, store);

interface Result {
  status: number;
  body: Buffer;
  length: number | null;
}

/** One GET on its own connection (no keep-alive), so "new connection" means new. */
function get(url: string, headers: Record<string, string> = {}): Promise<Result> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode!,
          body: Buffer.concat(chunks),
          length: res.headers['content-length'] ? Number(res.headers['content-length']) : null,
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

// A budget no busy machine reaches: the test is about shutdown, not about how long a query may take.
const start = () => startCli(['--query-timeout', '600000']);

describe('graceful shutdown of the CLI', () => {
  let child: ChildProcess | undefined;
  afterAll(() => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
  });

  it('finishes in-flight requests, ends their delays, refuses new connections and exits 0 on SIGTERM', async () => {
    const started = await start();
    child = started.child;
    const { url } = started;
    const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
      child!.once('exit', (code) => resolve({ code, at: Date.now() })),
    );

    const dk = cat.dkan[0]!;
    const item = cat.archive.find((i) => i.status === 'ok')!;
    const file = item.files.find((f) => f.endsWith('_meta.xml'))!;
    const slow = [
      get(`${url}/dkan/datastore/query/${dk.datasetId}/${dk.index}?limit=200`, { prefer: 'delay=30000' }),
      get(`${url}/dkan/datastore/query/${dk.distributionId}?limit=50&offset=100`, { prefer: 'delay=30000' }),
      get(`${url}/archive/download/${item.identifier}/${encodeURIComponent(file)}`, { prefer: 'fault=slow' }),
      get(`${url}/agco/api/v2/StringDefinitions?limit=100&includeTranslations=true`, {
        authorization: `Bearer ${cat.agco.tokens[0]}`,
        prefer: 'delay=30000',
      }),
    ];
    // A steady stream of ordinary requests on new connections, before and after the signal.
    const stream: Promise<Result | Error>[] = [];
    const streamUrls = [
      `${url}/marketcheck/popular/cars?api_key=k&car_type=used`,
      `${url}/archive/metadata/${item.identifier}`,
      `${url}/__mockyard/health`,
    ];
    let n = 0;
    const timer = setInterval(() => stream.push(get(streamUrls[n++ % streamUrls.length]!).catch((e: Error) => e)), 20);

    // The server is answering the stream, so the slow requests sent before it are in its hands.
    while (stream.length < 8) await new Promise((r) => setImmediate(r));
    await Promise.all(stream.slice(0, 8));
    child.kill('SIGTERM');

    // Close begins: the listening socket goes while the slow requests (held by 30 s delays) are still open.
    let refused: string | number | undefined;
    for (let i = 0; i < 500 && refused !== 'ECONNREFUSED'; i++) {
      refused = await get(`${url}/__mockyard/health`).then(
        (r) => r.status,
        (e: NodeJS.ErrnoException) => e.code,
      );
    }
    expect(refused).toBe('ECONNREFUSED');

    const results = await Promise.all(slow);
    clearInterval(timer);
    for (const r of results) {
      expect(r.status).toBe(200);
      if (r.length !== null) expect(r.body.length).toBe(r.length);
    }
    expect(JSON.parse(results[0]!.body.toString()).results).toHaveLength(200);
    expect(JSON.parse(results[1]!.body.toString()).results).toHaveLength(50);
    expect(results[2]!.body.equals(readFileSync(path.join(store.filesDir, 'archive', item.identifier, file)))).toBe(
      true,
    );
    expect(JSON.parse(results[3]!.body.toString()).Entities.length).toBeGreaterThan(0);

    const exit = await exited;
    // Shutdown ended the 30 s delays at once: everything above was answered, and the process exits 0.
    expect(exit.code).toBe(0);

    // Every stream request either completed normally or found the port closed; none got half an answer.
    const outcomes = await Promise.all(stream);
    const ok = outcomes.filter((r): r is Result => !(r instanceof Error));
    expect(ok.length).toBeGreaterThan(5);
    for (const r of ok) {
      expect([200, 503]).toContain(r.status);
      if (r.length !== null) expect(r.body.length).toBe(r.length);
    }
    for (const e of outcomes.filter((r): r is Error => r instanceof Error))
      expect((e as NodeJS.ErrnoException).code).toMatch(/ECONNREFUSED|ECONNRESET/);
  });
});
