// Routing by Host: the real hosts' base paths come from the contracts, and a plain request that names a real
// host (the /etc/hosts way) is served like one through the proxy, while other names keep the prefixes.
import http from 'node:http';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { AREAS } from '../../src/areas/index.js';
import { HostRouter, MAPPED_BASE_PATH, REAL_HOSTS } from '../../src/platform/hosts/real-hosts.js';
import { expectContract } from '../helpers/contract.js';
import { catalogOf, readAnswer, realOperations, startHosted, type Hosted } from './helpers.js';

const contractsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'contracts');
const serversOf = (area: string): string[] => {
  const file = readdirSync(contractsDir).find((f) => f.endsWith(`-${area}.openapi.json`))!;
  const contract = JSON.parse(readFileSync(path.join(contractsDir, file), 'utf8')) as { servers: { url: string }[] };
  return contract.servers.map((s) => s.url);
};

function get(
  port: number,
  hostHeader: string,
  pathAndQuery: string,
  headers: Record<string, string> = {},
): Promise<{ statusCode: number; headers: Record<string, string>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      { host: '127.0.0.1', port, path: pathAndQuery, headers: { host: hostHeader, ...headers }, agent: false },
      (res) => {
        readAnswer(res).then(resolve, reject);
      },
    );
    req.on('error', reject);
  });
}

describe('real host table', () => {
  it('uses the base URLs of the contracts’ servers', () => {
    for (const rule of REAL_HOSTS.filter((r) => !r.host.startsWith('*.'))) {
      expect(serversOf(rule.area), rule.host).toContain(`https://${rule.host}${rule.basePath}`);
    }
    // A host added with --host-map gets the contract's generic server path (DKAN: {scheme}://{host}/api/1).
    expect(serversOf('dkan')).toContain(`{scheme}://{host}${MAPPED_BASE_PATH.dkan}`);
    for (const area of AREAS)
      expect(
        REAL_HOSTS.some((r) => r.area === area.name),
        area.name,
      ).toBe(true);
  });

  it('maps paths under the base path to the area prefix, and others outside every route', () => {
    const router = new HostRouter(AREAS);
    const dkan = router.match('data.cms.gov')!;
    expect(HostRouter.rewrite(dkan, '/provider-data/api/1/datastore/query/x/0?limit=1')).toBe(
      '/dkan/datastore/query/x/0?limit=1',
    );
    expect(HostRouter.rewrite(dkan, '/provider-data/api/10/datastore')).not.toMatch(/^\/dkan\/datastore/);
    expect(router.match('ia600123.us.archive.org')!.area.name).toBe('archive');
    expect(router.match('notarchive.org')).toBeUndefined();
    expect(router.match('localhost')).toBeUndefined();
  });
});

describe('routing by Host on the plain port', () => {
  let hosted: Hosted;
  let port: number;
  beforeAll(async () => {
    hosted = await startHosted();
    port = Number(new URL(hosted.server.url).port);
  });

  it('serves every area when Host names its real host', async () => {
    for (const op of await realOperations(hosted.server)) {
      const url = new URL(op.url);
      const res = await get(port, url.host, `${url.pathname}${url.search}`, op.headers);
      expect(res.statusCode, op.url).toBe(200);
      expectContract(op.operationId, res);
    }
  });

  it('keeps the prefixes for mockyard’s own names and for names it does not know', async () => {
    const c = await catalogOf(hosted.server);
    const id = c.archive.items.find((i) => i.status === 'ok')!.identifier;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, 'mockyard:4010', 'host.docker.internal']) {
      const res = await get(port, host, `/archive/metadata/${id}`);
      expect(res.statusCode, host).toBe(200);
      expectContract('getItemMetadata', res);
    }
  });
});
