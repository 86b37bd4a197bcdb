// The metastore, the catalogue search and the import summary: DKAN's answers, from the same catalog the
// datastore queries, through mockyard's prefix and the real host name.
import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { expectContract } from '../helpers/contract.js';
import { testApp } from '../helpers/app.js';
import { readAnswer, startHosted } from '../hosts/helpers.js';
import { catalog, datasetWith } from './helpers.js';

const { app } = await testApp();
const datasets = await catalog(app);
const hospitals = datasetWith(datasets, 'facility_name');

type Dataset = Record<string, unknown> & { identifier: string; distribution?: unknown[] };
interface Search {
  total: number;
  results: Record<string, Dataset> | [];
  facets?: { type: string; name: string; total: number }[];
}

async function get(op: string, path: string, status = 200) {
  const res = await app.inject(`/dkan${path}`);
  expectContract(op, res);
  expect(res.statusCode, res.body.slice(0, 300)).toBe(status);
  return res;
}

describe('metastore', () => {
  it('lists exactly the datasets and distributions the datastore queries', async () => {
    const list = (await get('metastore-get-all', '/metastore/schemas/dataset/items')).json() as Dataset[];
    expect(list.map((d) => d.identifier)).toEqual(datasets.map((d) => d.id));
    const withRefs = (
      await get('metastore-get-all', '/metastore/schemas/dataset/items?show-reference-ids')
    ).json() as Dataset[];
    for (const [i, d] of datasets.entries()) {
      const dists = withRefs[i]!.distribution as { identifier: string; data: { title: string } }[];
      expect(dists.map((x) => x.identifier)).toEqual(d.resources.map((r) => r.distributionId));
      // Every listed distribution answers the datastore query by its id.
      for (const dist of dists) {
        const q = await app.inject(`/dkan/datastore/query/${dist.identifier}?limit=1`);
        expect(q.statusCode).toBe(200);
      }
    }
  });

  it('answers one dataset as DCAT-US, plain or with reference ids (data-catalog-services’ request)', async () => {
    const plain = (await get('metastore-get', `/metastore/schemas/dataset/items/${hospitals.id}`)).json() as Dataset;
    expect(plain['@type']).toBe('dcat:Dataset');
    expect(plain.keyword).toEqual(expect.arrayContaining(['hospitals']));
    expect((plain.distribution as Record<string, unknown>[])[0]).not.toHaveProperty('%Ref:downloadURL');
    const refs = (
      await get('metastore-get', `/metastore/schemas/dataset/items/${hospitals.id}?show-reference-ids`)
    ).json() as Dataset;
    const dist = (refs.distribution as { identifier: string; data: Record<string, unknown> }[])[0]!;
    expect(dist.identifier).toBe(hospitals.resources[0]!.distributionId);
    expect(dist.data['%Ref:downloadURL']).toBeDefined();
    expect(refs.keyword).toEqual(
      expect.arrayContaining([expect.objectContaining({ identifier: expect.any(String), data: 'hospitals' })]),
    );
    expect(refs.publisher).toEqual({
      identifier: expect.any(String),
      data: expect.objectContaining({ name: expect.any(String) }),
    });
    const distItem = await get('metastore-get', `/metastore/schemas/distribution/items/${dist.identifier}`);
    expect(distItem.json()).toMatchObject({ identifier: dist.identifier });
  });

  it('answers an unknown dataset with DKAN’s 404', async () => {
    const res = await get('metastore-get', '/metastore/schemas/dataset/items/nope', 404);
    expect(res.json()).toMatchObject({ message: 'Error retrieving metadata: dataset nope not found.', status: 404 });
  });
});

describe('search', () => {
  it('counts what the metastore lists, keys results dkan_dataset/<id> and pages them', async () => {
    const all = (await get('search-get', '/search?page-size=100')).json() as Search;
    expect(all.total).toBe(datasets.length);
    expect(Object.keys(all.results)).toEqual(expect.arrayContaining(datasets.map((d) => `dkan_dataset/${d.id}`)));
    const page2 = (await get('search-get', '/search?page-size=1&page=2&sort=title')).json() as Search;
    const titles = Object.values(all.results)
      .map((d) => d.title as string)
      .sort();
    expect(Object.values(page2.results).map((d) => d.title)).toEqual([titles[1]]);
    const desc = (await get('search-get', '/search?sort=title&sort-order=desc&page-size=1')).json() as Search;
    expect(Object.values(desc.results).map((d) => d.title)).toEqual([titles[titles.length - 1]]);
  });

  it('filters by fulltext and facet fields, and counts facets over the matches', async () => {
    const found = (await get('search-get', '/search?fulltext=hospitals&facets=theme,keyword')).json() as Search;
    expect(found.total).toBeGreaterThan(0);
    expect(found.total).toBeLessThan(datasets.length);
    const hospitalsFacet = found.facets!.find((f) => f.type === 'keyword' && f.name === 'hospitals');
    expect(hospitalsFacet?.total).toBe(found.total);
    expect(found.facets!.every((f) => f.type !== 'publisher__name')).toBe(true);
    const totals = found.facets!.map((f) => f.total);
    expect(totals).toEqual([...totals].sort((a, b) => b - a));
    const byKeyword = (await get('search-get', '/search?keyword=hospitals,nadac')).json() as Search;
    expect(byKeyword).toMatchObject({ total: 0, results: [] });
    const none = (await get('search-get', '/search?facets=0&fulltext=zzzznotaword')).json() as Search;
    expect(none).toEqual({ total: 0, results: [] });
  });

  it('caps page-size at 100 and refuses non-numeric paging in DKAN’s body', async () => {
    const res = await get('search-get', '/search?page=two', 400);
    expect(res.json()).toMatchObject({ message: 'Pagination arguments must be numeric.', status: 400 });
    expect((await get('search-get', '/search?page-size=1000')).statusCode).toBe(200);
  });
});

describe('import summary', () => {
  it('gives columns with record_number and the row count the datastore counts', async () => {
    const r = hospitals.resources[0]!;
    const body = (await get('datastore-get', `/datastore/imports/${r.distributionId}`)).json() as {
      numOfColumns: number;
      numOfRows: number;
      columns: Record<string, { type: string }>;
    };
    expect(Object.keys(body.columns)).toEqual(['record_number', ...r.columns.map((c) => c.name)]);
    expect(body.numOfColumns).toBe(r.columns.length + 1);
    const count = (await app.inject(`/dkan/datastore/query/${r.distributionId}?results=false`)).json().count;
    expect(body.numOfRows).toBe(count);
    const missing = await get('datastore-get', '/datastore/imports/nope', 404);
    expect(missing.json().message).toBe('A datastore for resource nope does not exist.');
  });
});

describe('through the real host name', () => {
  it('routes data.medicaid.gov/api/1 to the new operations, with the exact requests data-catalog-services sends', async () => {
    const hosted = await startHosted();
    const port = Number(new URL(hosted.server.url).port);
    const fetchVia = (p: string) =>
      new Promise<{ statusCode: number; headers: Record<string, string>; body: string }>((resolve, reject) => {
        http
          .get(
            { host: '127.0.0.1', port, path: encodeURI(p), headers: { host: 'data.medicaid.gov' }, agent: false },
            (res) => {
              readAnswer(res).then(resolve, reject);
            },
          )
          .on('error', reject);
      });
    const id = hospitals.resources[0]!.distributionId;
    // lib/hooks/useMetastoreDataset, useSearchAPI/helpers (fetchDatasets), useDatastoreSQL of 1.5.0.
    const meta = await fetchVia(`/api/1/metastore/schemas/dataset/items/${hospitals.id}?show-reference-ids`);
    expectContract('metastore-get', meta);
    const search = await fetchVia('/api/1/search/?fulltext=hospital&page-size=20&sort=modified&sort-order=desc');
    expectContract('search-get', search);
    const count = await fetchVia(`/api/1/datastore/sql/?query=[SELECT COUNT(*) FROM ${id}];&show-db-columns`);
    expectContract('datastore-sql', count);
    expect(Number(JSON.parse(count.body)[0].expression)).toBe(hospitals.resources[0]!.rows);
    const rows = await fetchVia(
      `/api/1/datastore/sql/?query=[SELECT * FROM ${id}][WHERE state = "AL"][LIMIT 5 OFFSET 0];&show-db-columns`,
    );
    expectContract('datastore-sql', rows);
    expect(JSON.parse(rows.body).every((r: { state: string }) => r.state === 'AL')).toBe(true);
    const imports = await fetchVia(`/api/1/datastore/imports/${id}`);
    expectContract('datastore-get', imports);
    for (const r of [meta, search, count, rows, imports]) expect(r.statusCode).toBe(200);
  });
});
