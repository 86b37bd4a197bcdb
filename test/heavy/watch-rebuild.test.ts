// --watch under load: three rebuilds while clients download, query and poll health. Every answer is a 2xx,
// no health answer takes longer than 100 ms, and each retired generation's files go once no request uses them.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config.js';
import { DB_FILE } from '../../fixtures/fingerprint.js';
import { get, probeHealth, sleep, stallMonitor, startCli, type Cli } from './helpers.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'mockyard-watch-load-'));
let server: Cli | undefined;
afterAll(async () => {
  await server?.stop();
  // For the record: the longest stall the server's own event loop saw (the probe is the test).
  console.log(/event-loop-stall: .*/.exec(server?.output() ?? '')?.[0]);
  rmSync(tmp, { recursive: true, force: true });
});

/** A download whose reader starts late, so its file stays open across a swap. */
function slowDownload(url: string, pauseMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        res.pause();
        setTimeout(() => {
          res.on('data', () => {});
          res.on('end', () => resolve(res.complete ? res.statusCode! : -1));
          res.resume();
        }, pauseMs);
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

describe('watch mode rebuilds under load', () => {
  it('rebuilds three times with 0 non-2xx answers and no health answer above 100 ms', {
    timeout: 600_000,
  }, async () => {
    // Start from a copy of the default database and its files, so only the rebuilds cost time.
    const source = resolveConfig({}).dataDir;
    const dataDir = path.join(tmp, 'data');
    const csvDir = path.join(tmp, 'csv');
    mkdirSync(dataDir, { recursive: true });
    mkdirSync(csvDir);
    for (const entry of readdirSync(source)) {
      if (entry === DB_FILE || entry.startsWith('files-'))
        cpSync(path.join(source, entry), path.join(dataDir, entry), { recursive: true });
    }
    server = await startCli(['--data-dir', dataDir, '--dkan-csv-dir', csvDir, '--watch'], stallMonitor);
    server.child.kill('SIGWINCH'); // the monitor starts afresh: start-up is not measured
    const { url } = server;
    const health = async () =>
      JSON.parse((await get(`${url}/__mockyard/health`)).body.toString()) as { generation: number; fixtures: string };
    const first = await health();
    expect(first, JSON.stringify(first)).toMatchObject({ generation: 0 });

    const catalog = JSON.parse((await get(`${url}/__mockyard/fixtures`)).body.toString()) as {
      archive: { items: { identifier: string; files: string[]; status: string }[] };
      dkan: { datasets: { id: string }[] };
      agco: { tokens: string[] };
    };
    const item = catalog.archive.items.find((i) => i.status === 'ok' && i.files.some((f) => f.endsWith('_512kb.mp4')))!;
    const big = `${url}/archive/download/${item.identifier}/${encodeURIComponent(item.files.find((f) => f.endsWith('_512kb.mp4'))!)}`;
    const dataset = catalog.dkan.datasets[0]!.id;
    const auth = { authorization: `Bearer ${catalog.agco.tokens[0]}` };

    const statuses = new Map<string, number>();
    const record = (kind: string, status: number) => {
      const key = `${kind} ${status}`;
      statuses.set(key, (statuses.get(key) ?? 0) + 1);
    };
    let running = true;
    let n = 0;
    const client = async (id: number) => {
      while (running) {
        const i = n++;
        try {
          switch ((i + id) % 5) {
            case 0:
              record('download', await slowDownload(big, 300));
              break;
            case 1:
              record('metadata', (await get(`${url}/archive/metadata/${item.identifier}`)).status);
              break;
            case 2:
              record(
                'dkan',
                (await get(`${url}/dkan/datastore/query/${dataset}/0?limit=20&offset=${i % 5000}`)).status,
              );
              break;
            case 3:
              record('agco', (await get(`${url}/agco/api/v2/StringDefinitions?limit=${1 + (i % 50)}`, auth)).status);
              break;
            default:
              record(
                'marketcheck',
                (await get(`${url}/marketcheck/popular/cars?api_key=k&car_type=${i % 2 ? 'used' : 'new'}`)).status,
              );
          }
        } catch (err) {
          record(`error ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, 0);
        }
      }
    };
    const probe = probeHealth(url, 50);
    const clients = Array.from({ length: 6 }, (_, id) => client(id));

    const fingerprints = new Set([(await health()).fixtures]);
    for (let round = 1; round <= 3; round++) {
      writeFileSync(path.join(csvDir, 'watched.csv'), `name,value\nround,${round}\nother,${round * 10}\n`);
      const deadline = Date.now() + 150_000;
      while ((await health()).generation < round) {
        if (Date.now() > deadline) throw new Error(`rebuild ${round} did not swap in: ${server.output().slice(-2000)}`);
        await sleep(100);
      }
      fingerprints.add((await health()).fixtures);
      await sleep(1000); // load on the new generation while the old one's last downloads finish
    }
    running = false;
    await Promise.all(clients);
    const { latencies, failures } = await probe.stop();

    const summary = [...statuses.entries()].map(([k, v]) => `${k}: ${v}`).join(', ');
    console.log(
      `watch under load: ${summary}; health probes ${latencies.length}, longest ${Math.max(...latencies).toFixed(1)} ms`,
    );
    const bad = [...statuses.entries()].filter(([k]) => !/ 2\d\d$/.test(k));
    expect(bad).toEqual([]);
    expect([...statuses.values()].reduce((a, b) => a + b, 0)).toBeGreaterThan(100);
    expect(failures).toEqual([]);
    expect(Math.max(...latencies)).toBeLessThanOrEqual(100);
    expect(fingerprints.size).toBe(4);

    // Retired generations' files are deleted once their last request is done; the current one's stay.
    await sleep(500);
    const folders = readdirSync(dataDir).filter((e) => e.startsWith('files-'));
    expect(folders).toEqual([`files-${(await health()).fixtures.slice(0, 12)}`]);
    expect(existsSync(path.join(dataDir, DB_FILE))).toBe(true);
  });
});
