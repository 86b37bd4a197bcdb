// Shared set-up for the real-host tests: a mockyard with its own CA folder, and one operation of every area
// written as a client of the real service writes it (real host, real base path), with ids from the catalog.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { startMockyard, type RunningMockyard, type StartOptions } from '../../src/index.js';

export interface Hosted {
  server: RunningMockyard;
  /** The CA certificate file clients are told to trust. */
  caPath: string;
  /** A scratch folder removed after the file's tests. */
  tmp: string;
}

export async function startHosted(options: StartOptions = {}): Promise<Hosted> {
  const tmp = mkdtempSync(path.join(tmpdir(), 'mockyard-hosts-'));
  const server = await startMockyard({ caDir: path.join(tmp, 'ca'), ...options });
  afterAll(async () => {
    await server.close();
    rmSync(tmp, { recursive: true, force: true });
  });
  return { server, caPath: server.caCertPath, tmp };
}

export interface RealOperation {
  area: string;
  operationId: string;
  /** The URL a client of the real service calls. */
  url: string;
  headers: Record<string, string>;
  /** The path mockyard's journal records for it (the area's prefix, without the real base path). */
  journalPath: string;
}

interface Catalog {
  archive: { items: { identifier: string; status: string }[] };
  marketcheck: { apiKeys: string[] };
  appcenter: { tokens: { token: string; groups: string[] }[]; apps: { owner: string; app: string }[] };
  agco: { tokens: string[] };
  dkan: { datasets: { id: string; resources: { index: number; distributionId: string }[] }[] };
}

export async function catalogOf(server: RunningMockyard): Promise<Catalog> {
  return (await (await fetch(`${server.url}/__mockyard/fixtures`)).json()) as Catalog;
}

/** One documented operation per area, per real host, each answered 200 by the fixtures. */
export async function realOperations(server: RunningMockyard): Promise<RealOperation[]> {
  const c = await catalogOf(server);
  const item = c.archive.items.find((i) => i.status === 'ok')!.identifier;
  const app = c.appcenter.apps[0]!;
  const token = c.appcenter.tokens.find((t) => t.groups.some((g) => g.startsWith(`${app.owner}/${app.app}/`)))!.token;
  const dataset = c.dkan.datasets[0]!;
  const releases = `/v0.1/apps/${app.owner}/${app.app}/releases`;
  const popular = `/popular/cars?api_key=${c.marketcheck.apiKeys[0]}&car_type=new`;
  const query = `/datastore/query/${dataset.id}/${dataset.resources[0]!.index}?limit=2`;
  const byDistribution = `/datastore/query/${dataset.resources[0]!.distributionId}?limit=1`;
  return [
    {
      area: 'archive',
      operationId: 'getItemMetadata',
      url: `https://archive.org/metadata/${item}`,
      headers: {},
      journalPath: `/archive/metadata/${item}`,
    },
    {
      area: 'marketcheck',
      operationId: 'getPopularCars',
      url: `https://marketcheck-prod.apigee.net/v2${popular}`,
      headers: {},
      journalPath: '/marketcheck/popular/cars',
    },
    {
      area: 'marketcheck',
      operationId: 'getPopularCars',
      url: `https://api.marketcheck.com/v2${popular}`,
      headers: {},
      journalPath: '/marketcheck/popular/cars',
    },
    {
      area: 'appcenter',
      operationId: 'releases_list',
      url: `https://api.appcenter.ms${releases}`,
      headers: { 'x-api-token': token },
      journalPath: `/appcenter${releases}`,
    },
    {
      area: 'agco',
      operationId: 'StringDefinitions_GetDefinitions',
      url: 'https://secure.agco-ats.com/api/v2/StringDefinitions',
      headers: { authorization: `Bearer ${c.agco.tokens[0]}`, accept: 'application/json' },
      journalPath: '/agco/api/v2/StringDefinitions',
    },
    {
      area: 'dkan',
      operationId: 'datastore-datasetindex-query-get',
      url: `https://data.medicaid.gov/api/1${query}`,
      headers: {},
      journalPath: `/dkan${query.split('?')[0]}`,
    },
    {
      area: 'dkan',
      operationId: 'datastore-resource-query-get',
      url: `https://data.cms.gov/provider-data/api/1${byDistribution}`,
      headers: {},
      journalPath: `/dkan${byDistribution.split('?')[0]}`,
    },
  ];
}

export interface JournalEntry {
  method: string;
  area: string;
  path: string;
  status: number | null;
  query: Record<string, string | string[]>;
  headers: Record<string, string>;
}

export async function journal(server: RunningMockyard): Promise<JournalEntry[]> {
  const body = (await (await fetch(`${server.url}/__mockyard/requests?limit=1000`)).json()) as {
    requests: JournalEntry[];
  };
  return body.requests;
}

export async function clearJournal(server: RunningMockyard): Promise<void> {
  // State-changing admin requests carry the admin header, which a cross-site form cannot send (browser-policy.ts).
  const res = await fetch(`${server.url}/__mockyard/requests`, {
    method: 'DELETE',
    headers: { 'x-mockyard-admin': '1' },
  });
  if (!res.ok) throw new Error(`clearing the journal answered ${res.status}`);
}

export interface Answer {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

/** Reads a whole response into an Answer. */
export function readAnswer(res: import('node:http').IncomingMessage): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('error', reject);
    res.on('end', () =>
      resolve({
        statusCode: res.statusCode!,
        headers: res.headers as Record<string, string>,
        body: Buffer.concat(chunks).toString('utf8'),
      }),
    );
  });
}
