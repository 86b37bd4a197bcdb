// DKAN on scenario datasets: typed columns from rows or CSV, conditions, sorts and count.
import { describe, expect, it } from 'vitest';
import { OP_DATASET_INDEX } from '../../src/areas/dkan/routes.js';
import { testApp } from '../helpers/app.js';
import { expectContract } from '../helpers/contract.js';
import { inScenario, putScenario } from './helpers.js';

const { app } = await testApp();

await putScenario(app, 'drugs', {
  dkan: {
    datasets: [
      {
        id: 'prices',
        title: 'Prices',
        resources: [
          {
            rows: [
              { 'Drug Name': 'Aspirin', Price: 2.5, Units: 10, 'As Of': '2025-01-02' },
              { 'Drug Name': 'Ibuprofen', Price: 12, Units: 9, 'As Of': '2025-03-01' },
              { 'Drug Name': 'Naproxen', Price: 7.25, Units: 100, 'As Of': '2024-12-31' },
              { 'Drug Name': 'aspirin plus', Price: null, Units: 2, 'As Of': '' },
            ],
          },
          { csv: 'code,label\n2,two\n10,ten\n1,one\n' },
        ],
      },
    ],
  },
});

async function query(index: number, q: string) {
  const res = await app.inject({ url: `/dkan/datastore/query/prices/${index}?${q}`, headers: inScenario('drugs') });
  expectContract(OP_DATASET_INDEX, res);
  return res;
}

describe('DKAN in a scenario', () => {
  it('makes DKAN column names and infers types, so numbers compare as numbers', async () => {
    const res = await query(
      0,
      'conditions[0][property]=units&conditions[0][value]=9&conditions[0][operator]=>&sorts[0][property]=units&sorts[0][order]=asc',
    );
    expect(res.statusCode).toBe(200);
    const body = res.json() as {
      results: Record<string, string>[];
      count: number;
      schema: Record<string, { fields: Record<string, { type: string }> }>;
    };
    expect(body.results.map((r) => r.drug_name)).toEqual(['Aspirin', 'Naproxen']);
    expect(body.count).toBe(2);
    expect(body.results[0]).toEqual({ drug_name: 'Aspirin', price: '2.50', units: '10', as_of: '2025-01-02' });
  });

  it('sorts by a decimal column and a date, and counts', async () => {
    const byPrice = (await query(0, 'sorts[0][property]=price&sorts[0][order]=desc')).json();
    expect(byPrice.results.map((r: { drug_name: string }) => r.drug_name)).toEqual([
      'Ibuprofen',
      'Naproxen',
      'Aspirin',
      'aspirin plus',
    ]);
    const byDate = (
      await query(0, 'sort=as_of asc&conditions[0][property]=as_of&conditions[0][operator]=not_empty')
    ).json();
    expect(byDate.results.map((r: { as_of: string }) => r.as_of)).toEqual(['2024-12-31', '2025-01-02', '2025-03-01']);
    const count = (
      await query(
        0,
        'conditions[0][property]=drug_name&conditions[0][value]=aspirin%25&conditions[0][operator]=like&results=false',
      )
    ).json();
    expect(count.count).toBe(2);
    expect(count.results).toBeUndefined();
  });

  it('serves a CSV resource at the next index, typed the same way', async () => {
    const body = (await query(1, 'sorts[0][property]=code&sorts[0][order]=asc')).json();
    expect(body.results.map((r: { label: string }) => r.label)).toEqual(['one', 'two', 'ten']);
  });

  it("knows only the scenario's datasets inside it, and none of them outside", async () => {
    const unknown = await app.inject({
      url: '/dkan/datastore/query/64a7a500-244b-5d74-a23c-d84bc7dec470/0?limit=1',
      headers: inScenario('drugs'),
    });
    expectContract(OP_DATASET_INDEX, unknown);
    expect(unknown.statusCode).toBe(404);
    const outside = await app.inject({ url: '/dkan/datastore/query/prices/0' });
    expect(outside.statusCode).toBe(404);
  });
});

describe('a scenario resource wider than SQLite can serve', () => {
  const columns = (n: number) => Array.from({ length: n }, (_, i) => `c${i}`);
  const put = (n: number) =>
    app.inject({
      method: 'PUT',
      url: '/__mockyard/scenarios/wide',
      payload: { dkan: { datasets: [{ id: 'w', resources: [{ columns: columns(n), rows: [columns(n)] }] }] } },
    });

  it.each([401, 500, 2001])('is refused with a 400 naming its columns, not a 500 (%i columns)', async (n) => {
    const res = await put(n);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      statusCode: 400,
      error: 'Bad Request',
      pointer: '/dkan/datasets/0/resources/0/columns',
    });
    expect(res.json().message).toContain('at most 400 columns');
  });

  it('serves 400 columns', async () => {
    expect((await put(400)).statusCode).toBeLessThan(300);
    const res = await app.inject({ url: '/dkan/datastore/query/w/0?limit=1', headers: inScenario('wide') });
    expect(res.statusCode).toBe(200);
    expect(Object.keys(res.json().results[0])).toHaveLength(400);
  });
});

describe('a download of long cells', () => {
  // 1,500 rows of 4,000 characters: about 6 MB of CSV, more than one page's 4 Mi characters.
  const rows = Array.from({ length: 1500 }, (_, i) => ({ n: i, text: `${'x'.repeat(4000)}${i}` }));

  it('arrives whole and in order when a page is cut by its size', async () => {
    await putScenario(app, 'long', { dkan: { datasets: [{ id: 'long', resources: [{ rows }] }] } });
    const res = await app.inject({
      url: '/dkan/datastore/query/long/0/download?format=csv',
      headers: inScenario('long'),
    });
    expect(res.statusCode).toBe(200);
    const lines = res.body.split('\n').filter((l) => l !== '');
    expect(lines).toHaveLength(1 + rows.length);
    expect(lines.slice(1).map((l) => Number(l.split(',')[0]))).toEqual(rows.map((r) => r.n));
    expect(lines.at(-1)).toBe(`1499,${'x'.repeat(4000)}1499`);
  });
});

describe('the size of a scenario’s schema', () => {
  const put = (datasets: unknown[]) =>
    app.inject({ method: 'PUT', url: '/__mockyard/scenarios/big-schema', payload: { dkan: { datasets } } });
  const wide = (n: number) => Array.from({ length: n }, (_, i) => `c${i}`);

  it('refuses more than 500 resources, naming the datasets', async () => {
    const datasets = Array.from({ length: 501 }, (_, i) => ({ id: `d${i}`, resources: [{ rows: [{ x: 1 }] }] }));
    const res = await put(datasets);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ statusCode: 400, pointer: '/dkan/datasets' });
    expect(res.json().message).toContain('at most 500 DKAN resources');
  });

  it('refuses more than 1,000 columns in all, naming the resource that passes them', async () => {
    const resource = { columns: wide(400), rows: [wide(400)] };
    const res = await put([{ id: 'w', resources: [resource, resource, resource] }]);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ pointer: '/dkan/datasets/0/resources/2/columns' });
    expect(res.json().message).toContain('at most 1000 columns in all');
  });

  it('builds 500 resources of 2 columns', async () => {
    const datasets = Array.from({ length: 500 }, (_, i) => ({
      id: `d${i}`,
      resources: [{ rows: [{ x: i, y: 'a' }] }],
    }));
    expect((await put(datasets)).statusCode).toBeLessThan(300);
  });
});
