// Scenarios in a running mockyard: startMockyard({ scenarios }), server.scenario(), --scenarios-dir with --watch, --scenario.
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startMockyard } from '../../src/index.js';
import { expectContract } from '../helpers/contract.js';
import { until } from '../helpers/wait.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'mockyard-scenarios-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const apps = (releases: number) => ({
  appcenter: {
    users: [{ name: 'dev', token: 'dev-token' }],
    apps: [
      {
        owner: 'dev',
        name: 'App',
        releases: Array.from({ length: releases }, (_, i) => ({
          id: i + 1,
          version: `${i}`,
          short_version: `1.${i}.0`,
          uploaded_at: `2025-05-0${i + 1}T12:00:00Z`,
        })),
      },
    ],
  },
});

async function releaseIds(url: string, headers: Record<string, string> = {}): Promise<number[]> {
  const res = await fetch(`${url}/v0.1/apps/dev/App/releases`, { headers: { 'x-api-token': 'dev-token', ...headers } });
  const body = await res.text();
  expectContract('releases_list', { statusCode: res.status, headers: Object.fromEntries(res.headers), body });
  return (JSON.parse(body) as { id: number }[]).map((r) => r.id);
}

describe('scenarios in a running mockyard', () => {
  it('loads startMockyard({ scenarios }) and --scenarios-dir at start, and server.scenario() adds one', async () => {
    writeFileSync(path.join(tmp, 'from-file.json'), JSON.stringify(apps(2)));
    const server = await startMockyard({ scenarios: { 'from-options': apps(1) }, scenariosDir: tmp });
    try {
      expect(await releaseIds(`${server.url}/scenarios/from-options/appcenter`)).toEqual([1]);
      expect(await releaseIds(`${server.url}/appcenter`, { 'Mockyard-Scenario': 'from-file' })).toEqual([2, 1]);

      const handle = await server.scenario('three-releases', apps(3));
      expect(handle.name).toBe('three-releases');
      expect(handle.url).toBe(`${server.url}/scenarios/three-releases`);
      expect(handle.areaUrls.appcenter).toBe(`${server.url}/scenarios/three-releases/appcenter`);
      expect(handle.headers).toEqual({ 'Mockyard-Scenario': 'three-releases' });
      expect(await releaseIds(handle.areaUrls.appcenter)).toEqual([3, 2, 1]);
      expect(await releaseIds(`${server.url}/appcenter`, handle.headers)).toEqual([3, 2, 1]);
      await handle.remove();
      const gone = await fetch(`${handle.areaUrls.appcenter}/v0.1/apps/dev/App/releases`, {
        headers: { 'x-api-token': 'dev-token' },
      });
      expect(gone.status).toBe(404);
      expect(await gone.text()).toContain('three-releases');

      await expect(server.scenario('broken', { appcenter: { apps: [{ owner: 'x' }] } })).rejects.toThrow(
        /\/appcenter\/apps\/0/,
      );
    } finally {
      await server.close();
    }
  });

  it('reloads a changed file and removes the scenario of a deleted one with --watch; --scenario is the default', async () => {
    const file = path.join(tmp, 'watched.json');
    writeFileSync(file, JSON.stringify(apps(1)));
    const server = await startMockyard({ scenariosDir: tmp, watch: true, scenario: 'watched', logLevel: 'silent' });
    try {
      // No header, no prefix: the default scenario.
      expect(await releaseIds(`${server.url}/appcenter`)).toEqual([1]);
      writeFileSync(file, JSON.stringify(apps(3)));
      await until(async () => (await releaseIds(`${server.url}/appcenter`)).length === 3);
      // A broken edit keeps the previous version. Each file is loaded once its own burst of events is over,
      // in the order the bursts ended: once a file written after the broken one is loaded, the broken
      // one has been read (and refused).
      writeFileSync(file, '{"appcenter": {"apps": [{}]}}');
      writeFileSync(path.join(tmp, 'after-broken.json'), JSON.stringify(apps(2)));
      await until(async () => (await fetch(`${server.url}/__mockyard/scenarios/after-broken`)).status === 200);
      expect(await releaseIds(`${server.url}/appcenter`)).toEqual([3, 2, 1]);
      unlinkSync(file);
      await until(async () => (await fetch(`${server.url}/__mockyard/scenarios/watched`)).status === 404);
    } finally {
      await server.close();
    }
  });

  it('refuses to start on a scenario file that cannot be used, naming the file and the pointer', async () => {
    const dir = mkdtempSync(path.join(tmp, 'bad-'));
    writeFileSync(path.join(dir, 'bad.json'), JSON.stringify({ marketcheck: { listings: [{ make: 1 }] } }));
    await expect(startMockyard({ scenariosDir: dir })).rejects.toThrow(/bad\.json.*\/marketcheck\/listings\/0/);
  });
});
