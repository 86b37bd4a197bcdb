// Watch mode: a change in a watched folder rebuilds the database and swaps it in under a running server.
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildFixtures } from '../../fixtures/build.js';
import { resolveConfig } from '../../src/config.js';
import { fixturesRoot } from '../../src/paths.js';
import { watchFixtures } from '../../src/platform/data/watch.js';
import { until } from '../helpers/wait.js';
import { controlsApp } from './controls-helpers.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'mockyard-watch-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function slowGet(url: string, onFirstChunk: () => void): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { prefer: 'fault=slow' }, agent: false }, (res) => {
        let body = '';
        let first = true;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
          if (first) onFirstChunk();
          first = false;
        });
        res.on('end', () =>
          res.complete ? resolve({ status: res.statusCode ?? 0, body }) : reject(new Error('incomplete')),
        );
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

describe('watch mode', () => {
  it('rebuilds on a change, swaps without dropping an in-flight response, and drops per-generation caches', {
    timeout: 90_000,
  }, async () => {
    // Start from a copy of the default database, so only the rebuild costs time.
    const dataDir = path.join(tmp, 'data');
    cpSync(resolveConfig({}).dataDir, dataDir, { recursive: true });
    const watched = path.join(tmp, 'watched');
    mkdirSync(watched);

    const { app, stores, url } = await controlsApp({ dataDir }, true);
    const generation = async () =>
      (await app.inject({ url: '/archive/generation' })).json<{
        fingerprint: string;
        generation: number;
        computed: number;
      }>();
    const before = await generation();
    expect(before).toMatchObject({ generation: 0, computed: 1 });
    expect((await generation()).computed).toBe(1); // cached

    let seed = 4242;
    let inflight: Promise<{ status: number; body: string }> | undefined;
    let rebuilds = 0;
    let fail = false;
    const errors: unknown[] = [];
    const watcher = watchFixtures({
      dirs: [watched],
      debounceMs: 50,
      stores,
      dataDir,
      log: { info: () => {}, error: (obj) => errors.push(obj) },
      rebuild: async () => {
        rebuilds += 1;
        if (fail) throw new Error('broken fixture');
        const result = await buildFixtures({ dataDir, fixturesDir: fixturesRoot(), seed, scale: 1, dkanCsvDir: null });
        if (!inflight) {
          // Swap while a response is halfway out: it was computed from the old data and must finish intact.
          let started!: () => void;
          const firstChunk = new Promise<void>((r) => (started = r));
          inflight = slowGet(`${url}/archive/items/abc?size=3000`, started);
          await firstChunk;
        }
        return result;
      },
    });
    try {
      // A burst of saves is one rebuild.
      for (let i = 0; i < 5; i++) writeFileSync(path.join(watched, `f${i}.json`), String(i));
      await until(() => rebuilds === 1);
      await new Promise((r) => setTimeout(r, 120));
      await watcher.idle();
      expect(rebuilds).toBe(1);
      expect(stores.current.generation).toBe(1);

      const done = await inflight;
      expect(done?.status).toBe(200);
      expect(JSON.parse(done?.body ?? '')).toEqual({ id: 'abc', data: 'x'.repeat(3000) });

      const after = await generation();
      expect(after.generation).toBe(1);
      expect(after.fingerprint).not.toBe(before.fingerprint);
      expect(after.computed).toBe(2);

      // Sources unchanged: nothing rebuilt, nothing swapped.
      writeFileSync(path.join(watched, 'f0.json'), 'again');
      await until(() => rebuilds === 2);
      await watcher.idle();
      expect(rebuilds).toBe(2);
      expect(stores.current.generation).toBe(1);

      // A failing rebuild is logged and the old data keeps being served.
      fail = true;
      seed = 4343;
      writeFileSync(path.join(watched, 'f1.json'), 'broken');
      await until(() => rebuilds === 3);
      await watcher.idle();
      expect(errors).toHaveLength(1);
      expect(stores.current.generation).toBe(1);
      expect((await generation()).fingerprint).toBe(after.fingerprint);
    } finally {
      watcher.close();
    }
  });
});
