// A client written against the real API (upstream paths, parameter names and header), pointed at mockyard.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { appcenterArea } from '../../src/areas/appcenter/index.js';
import { buildApp } from '../../src/app.js';
import { FixtureStore } from '../../src/platform/data/fixture-store.js';
import { Stores } from '../../src/platform/data/stores.js';
import { testApp } from '../helpers/app.js';
import { contractProblems } from '../helpers/contract.js';
import { newestFirst, rawReleases, tokenOf } from './helpers.js';

// --- the client, as one would write it for https://api.appcenter.ms ---------------------------
interface BasicReleaseDetailsResponse {
  id: number;
  version: string;
  short_version: string;
  uploaded_at: string;
  enabled: boolean;
  origin?: 'hockeyapp' | 'appcenter';
  distribution_groups?: { id: string; name?: string; is_latest?: boolean }[];
  destinations?: { id: string; destination_type?: 'group' | 'store' | 'tester' }[];
}
interface ReleasesListOptions {
  published_only?: boolean;
  scope?: 'tester';
  top?: number;
  releaseId?: number;
}
class AppCenterApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: { message: string; statusCode: number; code: string },
  ) {
    super(body.message);
  }
}
class AppCenterClient {
  constructor(
    private readonly apiToken: string,
    private readonly baseUrl = 'https://api.appcenter.ms',
  ) {}

  async releasesList(
    ownerName: string,
    appName: string,
    options: ReleasesListOptions = {},
  ): Promise<BasicReleaseDetailsResponse[]> {
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(options)) if (v !== undefined) query.set(k, String(v));
    const url = `${this.baseUrl}/v0.1/apps/${encodeURIComponent(ownerName)}/${encodeURIComponent(appName)}/releases${query.size ? `?${query}` : ''}`;
    const res = await fetch(url, { headers: { 'X-API-Token': this.apiToken, Accept: 'application/json' } });
    const body: unknown = await res.json();
    lastResponse = {
      statusCode: res.status,
      headers: { 'content-type': res.headers.get('content-type') ?? '' },
      body: JSON.stringify(body),
    };
    if (!res.ok) throw new AppCenterApiError(res.status, body as AppCenterApiError['body']);
    return body as BasicReleaseDetailsResponse[];
  }
}
// ------------------------------------------------------------------------------------------------
let lastResponse: { statusCode: number; headers: Record<string, string>; body: string } | undefined;

const { app, store, config } = await testApp();
let ownPort: FastifyInstance;
const bases: Record<string, string> = {};

beforeAll(async () => {
  bases.shared = `${await app.listen({ port: 0, host: '127.0.0.1' })}/appcenter`;
  // As with --area-ports: the area alone at the root of its own port, the real base URL's shape.
  const ownStore = new Stores(FixtureStore.open(config.dataDir));
  ownPort = await buildApp(config, ownStore, { only: appcenterArea });
  ownPort.addHook('onClose', async () => ownStore.close());
  bases.own = await ownPort.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await ownPort?.close();
});

describe.each(['shared', 'own'])('a real-API client against mockyard (%s port)', (which) => {
  it('lists releases newest first and passes the filters through unchanged', async () => {
    const client = new AppCenterClient(tokenOf('bob'), bases[which]);
    const all = await client.releasesList('contoso', 'Field-Service-Android');
    expect(contractProblems('releases_list', lastResponse!)).toEqual([]);
    expect(all.map((r) => r.id)).toEqual(
      newestFirst(rawReleases(store, 'contoso', 'Field-Service-Android')).map((r) => r.id),
    );

    const published = await client.releasesList('contoso', 'Field-Service-Android', { published_only: true, top: 3 });
    expect(published).toHaveLength(3);
    const mine = await client.releasesList('contoso', 'Field-Service-Android', { scope: 'tester' });
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.length).toBeLessThan(all.length);
    const one = await client.releasesList('contoso', 'Field-Service-Android', { releaseId: all[4]!.id });
    expect(one).toEqual([all[4]]);
  });

  it('surfaces 401 and 404 as App Center error bodies', async () => {
    await expect(
      new AppCenterClient('bogus', bases[which]).releasesList('contoso', 'Field-Service-Android'),
    ).rejects.toMatchObject({
      status: 401,
      body: { statusCode: 401, code: 'Unauthorized' },
    });
    expect(contractProblems('releases_list', lastResponse!)).toEqual([]);
    await expect(
      new AppCenterClient(tokenOf('dave'), bases[which]).releasesList('contoso', 'Field-Service-Android'),
    ).rejects.toMatchObject({
      status: 404,
      body: { statusCode: 404, code: 'Not Found' },
    });
    expect(contractProblems('releases_list', lastResponse!)).toEqual([]);
  });
});
