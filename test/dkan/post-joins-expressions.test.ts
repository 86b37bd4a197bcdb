// DKAN's other ways in: POST bodies, /datastore/query with joins, the download and schema routes, aliases,
// expressions and groupings. Sources are GetDKAN/dkan files at d44f718; expectations come from the plain rows.
import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers/app.js';
import { expectContract } from '../helpers/contract.js';
import { LIMITS } from '../../src/areas/dkan/parse.js';
import { catalog, datasetWith, enc, envelope, fputcsv, type Envelope, type Row } from './helpers.js';

const { app } = await testApp();
const { app: machine } = await testApp({ dkanCsvHeaders: 'machine_names' });
const datasets = await catalog(app);
const hospitals = datasetWith(datasets, 'hospital_overall_rating');
const quality = datasetWith(datasets, 'measure_id');
const hospitalsDist = hospitals.resources[0]!.distributionId;
const qualityDist = quality.resources[0]!.distributionId;
const base = `/datastore/query/${hospitals.id}/0`;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/;

async function post(path: string, body: unknown, operationId: string, status = 200, contentType = 'application/json') {
  const res = await app.inject({
    method: 'POST',
    url: `/dkan${path}`,
    payload: typeof body === 'string' ? body : JSON.stringify(body),
    headers: { 'content-type': contentType },
  });
  expectContract(operationId, res);
  expect(res.statusCode, res.body.slice(0, 500)).toBe(status);
  return res;
}

async function get(path: string, operationId: string, status = 200, on = app) {
  const res = await on.inject(`/dkan${path}`);
  expectContract(operationId, res);
  expect(res.statusCode, res.body.slice(0, 500)).toBe(status);
  return res;
}

const plain400 = (message: string) => ({ message, status: 400, timestamp: expect.stringMatching(TIMESTAMP) });
const allHospitals = (await envelope(app, `${base}?limit=10000&schema=false`)).results as Row[];
const allQuality = (await envelope(app, `/datastore/query/${quality.id}/0?limit=10000&schema=false`)).results as Row[];

// datastore.routing.yml 62-126: every query path takes GET and POST.
describe('POST with a JSON body', () => {
  const query = {
    conditions: [{ property: 'state', value: 'CA' }],
    sorts: [{ property: 'facility_name', order: 'desc' }],
    limit: 7,
    properties: ['facility_id', 'facility_name', 'state'],
  };
  const asGet = `limit=7&conditions[0][property]=state&conditions[0][value]=CA&sorts[0][property]=facility_name&sorts[0][order]=desc&properties[0]=facility_id&properties[1]=facility_name&properties[2]=state`;

  it('answers on /{datasetId}/{index} and /{distributionId} as the same query by GET does', async () => {
    const expected = (await get(`${base}?${asGet}`, 'datastore-datasetindex-query-get')).json() as Envelope;
    const byIndex = (await post(base, query, 'datastore-datasetindex-query-post')).json() as Envelope;
    const byDist = (
      await post(`/datastore/query/${hospitalsDist}`, query, 'datastore-resource-query-post')
    ).json() as Envelope;
    expect(byIndex.results).toEqual(expected.results);
    expect(byDist.results).toEqual(expected.results);
    expect(byIndex.count).toBe(allHospitals.filter((r) => r.state === 'CA').length);
    // Query.php 68: the body is echoed as sent, then resources and defaults (DatastoreQuery::populateDefaults).
    expect(byIndex.query).toEqual({
      ...query,
      resources: [{ id: hospitalsDist, alias: 't' }],
      offset: 0,
      count: true,
      results: true,
      schema: true,
      keys: true,
      format: 'json',
      rowIds: false,
    });
  });
  it('reads the body as JSON whatever the Content-Type (AbstractQueryController.php 316-322)', async () => {
    const res = await post(
      base,
      JSON.stringify({ limit: 2 }),
      'datastore-datasetindex-query-post',
      200,
      'application/x-www-form-urlencoded',
    );
    expect(res.json().results).toHaveLength(2);
  });
  it('keeps JSON types: numbers and booleans, and refuses a body that is not a query object', async () => {
    const res = await post(
      base,
      { limit: '3', keys: false, count: false, schema: false },
      'datastore-datasetindex-query-post',
    );
    expect(res.json()).toEqual({
      results: expect.any(Array),
      query: expect.objectContaining({ limit: 3, keys: false }),
    });
    expect((res.json().results as unknown[][])[0]).toBeInstanceOf(Array);
    await post(base, '{"limit":', 'datastore-datasetindex-query-post', 400);
    await post(base, '[1,2]', 'datastore-datasetindex-query-post', 400);
    const bad = await post(
      base,
      { conditions: [{ property: 'state', value: 'CA', operator: 'LIKE' }] },
      'datastore-datasetindex-query-post',
      400,
    );
    expect(bad.json().data.pointer).toBe('conditions/0/operator');
  });
});

// SelectFactory.php 128-129 and 157: {resource, property, alias} selects the column under the alias.
describe('property aliases', () => {
  it('names the row key after the alias', async () => {
    const body = (
      await post(
        base,
        { properties: [{ resource: 't', property: 'facility_id', alias: 'id' }, 'state'], limit: 3 },
        'datastore-datasetindex-query-post',
      )
    ).json() as Envelope;
    expect(body.results).toEqual(allHospitals.slice(0, 3).map((r) => ({ id: r.facility_id, state: r.state })));
  });
  it('works in the bracket form too, and a sort can use the alias', async () => {
    const qs =
      'properties[0][resource]=t&properties[0][property]=hospital_overall_rating&properties[0][alias]=rating&sorts[0][property]=rating&sorts[0][order]=desc&limit=5';
    const rows = (await envelope(app, `${base}?${qs}`)).results as Row[];
    expect(Object.keys(rows[0]!)).toEqual(['rating']);
    const best = Math.max(...allHospitals.map((r) => Number(r.hospital_overall_rating || 0)));
    expect(rows[0]!.rating).toBe(String(best));
  });
});

// query.json 41-48 and 217-259; SelectFactory.php 189-223; QueryFactory.php 88-97.
describe('expressions and groupings', () => {
  it('count, sum, avg, min and max per group, with their aliases', async () => {
    const expr = (operator: string, alias: string, property = 'sample') => ({
      alias,
      expression: { operator, operands: [{ resource: 't', property }] },
    });
    const body = (
      await post(
        `/datastore/query/${quality.id}/0`,
        {
          properties: [
            'state',
            expr('count', 'n'),
            expr('sum', 'total'),
            expr('avg', 'mean'),
            expr('min', 'low'),
            expr('max', 'high'),
          ],
          groupings: ['state'],
          sorts: [{ property: 'n', order: 'desc' }],
          limit: 3,
        },
        'datastore-datasetindex-query-post',
      )
    ).json() as Envelope;
    const byState = new Map<string, number[]>();
    const rowsOf = new Map<string, number>();
    for (const r of allQuality) {
      rowsOf.set(r.state!, (rowsOf.get(r.state!) ?? 0) + 1);
      if (r.sample !== '') byState.set(r.state!, [...(byState.get(r.state!) ?? []), Number(r.sample)]);
    }
    const top = [...rowsOf.entries()].sort((a, b) => b[1] - a[1]);
    expect(body.count).toBe(rowsOf.size);
    const first = (body.results as Row[])[0]!;
    expect(first.state).toBe(top[0]![0]);
    const values = byState.get(first.state!)!;
    expect(first).toEqual({
      state: first.state,
      n: String(top[0]![1]),
      total: String(values.reduce((a, b) => a + b, 0)),
      mean: expect.any(String),
      low: String(Math.min(...values)),
      high: String(Math.max(...values)),
    });
    expect(Number(first.mean)).toBeCloseTo(values.reduce((a, b) => a + b, 0) / values.length, 6);
  });
  it('arithmetic on columns and numbers, nested', async () => {
    const body = (
      await post(
        `/datastore/query/${quality.id}/0`,
        {
          properties: [
            'sample',
            {
              alias: 'calc',
              expression: { operator: '*', operands: [{ expression: { operator: '+', operands: ['sample', 1] } }, 2] },
            },
            { alias: 'half', expression: { operator: '/', operands: ['sample', 2] } },
          ],
          conditions: [{ property: 'sample', value: '', operator: '<>' }],
          limit: 5,
        },
        'datastore-datasetindex-query-post',
      )
    ).json() as Envelope;
    for (const r of body.results as Row[]) {
      expect(Number(r.calc)).toBe((Number(r.sample) + 1) * 2);
      // MySQL's `/` divides exactly.
      expect(Number(r.half)).toBe(Number(r.sample) / 2);
    }
  });
  it('an aggregate over the whole resource is one row', async () => {
    const body = (
      await post(
        `/datastore/query/${quality.id}/0`,
        { properties: [{ alias: 'rows', expression: { operator: 'count', operands: ['facility_id'] } }] },
        'datastore-datasetindex-query-post',
      )
    ).json() as Envelope;
    expect(body.results).toEqual([{ rows: String(allQuality.length) }]);
    expect(body.count).toBe(1);
  });
  it('groupings without properties, or with a property not grouped: "Un-grouped properties found" (Query.php 235-237, QueryFactory.php 93-96)', async () => {
    const others = hospitals.resources[0]!.columns.map((c) => c.name).filter((c) => c !== 'state');
    const res = await get(`${base}?groupings[]=state`, 'datastore-datasetindex-query-get', 400);
    expect(res.json()).toEqual(plain400(`Un-grouped properties found in aggregate query: ${others.join(', ')}`));
    const res2 = await get(
      `${base}?groupings[]=state&properties[]=state&properties[]=citytown`,
      'datastore-datasetindex-query-get',
      400,
    );
    expect(res2.json()).toEqual(plain400('Un-grouped properties found in aggregate query: citytown'));
  });
  it("plain properties beside an aggregate without groupings: MySQL's message (AbstractDatabaseTable.php 249)", async () => {
    const res = await post(
      base,
      { properties: ['state', { alias: 'n', expression: { operator: 'count', operands: ['state'] } }] },
      'datastore-datasetindex-query-post',
      400,
    );
    expect(res.json().message).toMatch(/^You may not mix simple properties and aggregation expressions/);
  });
  it(`refuses expressions deeper than ${LIMITS.expressionDepth} levels or with more than ${LIMITS.expressionNodes} operands`, async () => {
    let expression: unknown = { operator: '+', operands: ['sample', 1] };
    for (let i = 1; i < LIMITS.expressionDepth; i++) expression = { operator: '+', operands: [{ expression }, 1] };
    await post(
      `/datastore/query/${quality.id}/0`,
      { properties: [{ alias: 'deep', expression }], limit: 1 },
      'datastore-datasetindex-query-post',
    );
    const deeper = await post(
      `/datastore/query/${quality.id}/0`,
      { properties: [{ alias: 'deep', expression: { operator: '+', operands: [{ expression }, 1] } }] },
      'datastore-datasetindex-query-post',
      400,
    );
    expect(deeper.json().data).toMatchObject({ keyword: 'maxDepth' });
    const wide = await post(
      `/datastore/query/${quality.id}/0`,
      {
        properties: [
          {
            alias: 'wide',
            expression: { operator: '+', operands: Array.from({ length: LIMITS.expressionNodes }, () => 1) },
          },
        ],
      },
      'datastore-datasetindex-query-post',
      400,
    );
    expect(wide.json().data).toMatchObject({ keyword: 'maxItems' });
  });
  it('refuses unknown expression operators and expressions without alias (query.json 41-48, 225-236)', async () => {
    const res = await post(
      base,
      { properties: [{ alias: 'x', expression: { operator: 'stddev', operands: ['state'] } }] },
      'datastore-datasetindex-query-post',
      400,
    );
    expect(res.json().data).toMatchObject({ keyword: 'enum', pointer: 'properties/0/expression/operator' });
    const res2 = await post(
      base,
      { properties: [{ expression: { operator: 'count', operands: ['state'] } }] },
      'datastore-datasetindex-query-post',
      400,
    );
    expect(res2.json().data).toMatchObject({ keyword: 'required', pointer: 'properties/0' });
  });
});

// datastore.routing.yml 62-70; QueryFactory.php 300-326; SelectFactory.php 431-484.
describe('/datastore/query with several resources and joins', () => {
  const join = {
    resources: [
      { id: qualityDist, alias: 'q' },
      { id: hospitalsDist, alias: 'h' },
    ],
    properties: [
      { resource: 'q', property: 'facility_id' },
      { resource: 'q', property: 'measure_id' },
      { resource: 'h', property: 'hospital_type', alias: 'type' },
    ],
    joins: [
      {
        resource: 'h',
        condition: { resource: 'q', property: 'facility_id', value: { resource: 'h', property: 'facility_id' } },
      },
    ],
    conditions: [{ resource: 'h', property: 'state', value: 'CA' }],
    limit: 20,
  };
  it('joins rows on the condition and takes properties from both', async () => {
    const body = (await post('/datastore/query', join, 'datastore-query-post')).json() as Envelope;
    const hospitalById = new Map(allHospitals.map((h) => [h.facility_id!, h]));
    const expected = allQuality.filter((r) => hospitalById.get(r.facility_id!)?.state === 'CA');
    expect(expected.length).toBeGreaterThan(0);
    expect(body.count).toBe(expected.length);
    expect(body.results).toEqual(
      expected.slice(0, 20).map((r) => ({
        facility_id: r.facility_id,
        measure_id: r.measure_id,
        type: hospitalById.get(r.facility_id!)!.hospital_type,
      })),
    );
    // Query.php 81-96: one table schema per resource.
    expect(Object.keys(body.schema!)).toEqual([qualityDist, hospitalsDist]);
  });
  it('answers the same by GET in the bracket form', async () => {
    const qs = [
      `resources[0][id]=${qualityDist}&resources[0][alias]=q&resources[1][id]=${hospitalsDist}&resources[1][alias]=h`,
      'properties[0][resource]=q&properties[0][property]=facility_id&properties[1][resource]=q&properties[1][property]=measure_id&properties[2][resource]=h&properties[2][property]=hospital_type&properties[2][alias]=type',
      'joins[0][resource]=h&joins[0][condition][resource]=q&joins[0][condition][property]=facility_id&joins[0][condition][value][resource]=h&joins[0][condition][value][property]=facility_id',
      'conditions[0][resource]=h&conditions[0][property]=state&conditions[0][value]=CA&limit=20',
    ].join('&');
    const viaGet = (await get(`/datastore/query?${qs}`, 'datastore-query-get')).json() as Envelope;
    const viaPost = (await post('/datastore/query', join, 'datastore-query-post')).json() as Envelope;
    expect(viaGet.results).toEqual(viaPost.results);
  });
  it('refuses a resource without a join, an unknown alias, an unknown resource, and joins past the bound', async () => {
    const res = await post('/datastore/query', { ...join, joins: [] }, 'datastore-query-post', 400);
    expect(res.json()).toEqual(plain400('Too many resources specified.'));
    const res2 = await post(
      '/datastore/query',
      { ...join, properties: [{ resource: 'x', property: 'facility_id' }] },
      'datastore-query-post',
      400,
    );
    expect(res2.json()).toEqual(plain400('Column not found.'));
    const res3 = await post(
      '/datastore/query',
      { ...join, resources: [{ id: 'no-such-distribution', alias: 'q' }] },
      'datastore-query-post',
      404,
    );
    expect(res3.json().message).toBe('Error retrieving metadata: distribution no-such-distribution not found.');
    const many = Array.from({ length: 5 }, (_, i) => ({ id: hospitalsDist, alias: `a${i}` }));
    const res4 = await post('/datastore/query', { resources: many }, 'datastore-query-post', 400);
    expect(res4.json().data).toMatchObject({ keyword: 'maxItems', pointer: 'resources' });
    const res5 = await post(
      '/datastore/query',
      { ...join, joins: [{ ...join.joins[0], condition: { ...join.joins[0]!.condition, value: 'x' } }] },
      'datastore-query-post',
      400,
    );
    expect(res5.json()).toEqual(plain400('Invalid join condition; collection must be specified.'));
    // mockyard's bound: a join can give at most the product of the row counts, so that product is capped.
    const nadac = datasetWith(datasets, 'nadac_per_unit').resources[0]!;
    const big = {
      ...join,
      resources: [
        { id: nadac.distributionId, alias: 'q' },
        { id: hospitalsDist, alias: 'h' },
      ],
      properties: [],
      conditions: [],
    };
    const res6 = await post('/datastore/query', big, 'datastore-query-post', 400);
    expect(res6.json().data).toMatchObject({ keyword: 'maximum', pointer: 'joins' });
    expect(nadac.rows * hospitals.resources[0]!.rows).toBeGreaterThan(LIMITS.joinRows);
  });
});

// QueryController.php 60-70 with CSVResponse, AbstractQueryController.php 354-375.
describe('CSV', () => {
  it('an empty result is an empty body', async () => {
    const res = await get(
      `${base}?format=csv&conditions[0][property]=state&conditions[0][value]=nowhere`,
      'datastore-datasetindex-query-get',
    );
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    expect(res.body).toBe('');
  });
  it('machine_names mode (--dkan-csv-headers) uses the column names; aliases and expressions keep their names', async () => {
    const res = await get(
      `${base}?format=csv&limit=2&properties[0]=facility_id&properties[1][resource]=t&properties[1][property]=state&properties[1][alias]=st`,
      'datastore-datasetindex-query-get',
      200,
      machine,
    );
    expect(res.body.split('\n')[0]).toBe('facility_id,state');
    const described = await get(
      `${base}?format=csv&limit=2&properties[0]=facility_id&properties[1][resource]=t&properties[1][property]=state&properties[1][alias]=st`,
      'datastore-datasetindex-query-get',
    );
    const schema = (await envelope(app, `${base}?limit=1`)).schema![hospitalsDist]!.fields;
    expect(described.body.split('\n')[0]).toBe(fputcsv([schema.facility_id!.description, schema.state!.description]));
  });
});

// QueryDownloadController.php 60-70 and 83-124.
describe('download routes', () => {
  it('stream every matching row as CSV with a header row, with no rows limit', async () => {
    const res = await get(
      `${base}/download?format=csv&properties[]=facility_id&properties[]=state`,
      'datastore-datasetindex-query-download-get',
    );
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    expect(res.headers['content-disposition']).toBe('attachment; filename="data.csv"');
    const lines = res.body.trimEnd().split('\n');
    expect(lines).toHaveLength(allHospitals.length + 1);
    expect(lines.slice(1, 4)).toEqual(allHospitals.slice(0, 3).map((r) => fputcsv([r.facility_id!, r.state!])));
  });
  it('answer the same on the distribution path and by POST, honour limit and offset, and keep the header on no rows', async () => {
    const a = await get(
      `/datastore/query/${hospitalsDist}/download?format=csv&limit=3&offset=2`,
      'datastore-resource-query-download-get',
    );
    const b = await post(
      `/datastore/query/${hospitalsDist}/download`,
      { format: 'csv', limit: 3, offset: 2 },
      'datastore-resource-query-download-post',
    );
    expect(a.body).toBe(b.body);
    expect(a.body.trimEnd().split('\n')).toHaveLength(4);
    const none = await get(
      `${base}/download?format=csv&conditions[0][property]=state&conditions[0][value]=nowhere`,
      'datastore-datasetindex-query-download-get',
    );
    expect(none.body.trimEnd().split('\n')).toHaveLength(1);
  });
  // QueryDownloadController.php 68 overwrites `results` before validation; getHeaderRow (AbstractQueryController.php
  // 356-358) needs the schema, and the stream writes its exception message as the only row (QueryDownloadController.php 102-104).
  it("ignore results, and without the schema write DKAN's header error as the only row", async () => {
    const ignored = await get(
      `${base}/download?format=csv&limit=1&results=maybe`,
      'datastore-datasetindex-query-download-get',
    );
    expect(ignored.body.trimEnd().split('\n')).toHaveLength(2);
    const noSchema = await get(
      `${base}/download?format=csv&limit=1&schema=false`,
      'datastore-datasetindex-query-download-get',
    );
    expect(noSchema.body).toBe('"Could not generate header for CSV."\n');
    // The query routes force the schema for CSV instead (AbstractQueryController.php 229-232).
    await get(`${base}?format=csv&limit=1&schema=maybe`, 'datastore-datasetindex-query-get');
  });
  it('refuse JSON: "Streaming not currently available for JSON responses"', async () => {
    const res = await get(`${base}/download`, 'datastore-datasetindex-query-download-get', 400);
    expect(res.json()).toEqual(plain400('Streaming not currently available for JSON responses'));
  });
  it('work across joined resources on /datastore/query/download', async () => {
    const res = await post(
      '/datastore/query/download',
      {
        resources: [
          { id: qualityDist, alias: 'q' },
          { id: hospitalsDist, alias: 'h' },
        ],
        properties: [
          { resource: 'q', property: 'measure_id' },
          { resource: 'h', property: 'state' },
        ],
        joins: [
          {
            resource: 'h',
            condition: { resource: 'q', property: 'facility_id', value: { resource: 'h', property: 'facility_id' } },
          },
        ],
        format: 'csv',
        limit: 5,
      },
      'datastore-query-download-post',
    );
    expect(res.body.trimEnd().split('\n')).toHaveLength(6);
  });
});

// datastore.routing.yml 119-126; QueryController.php 80-83; DatastoreQuery.php 20-30.
describe('/datastore/query/schema', () => {
  it('serves query.json with the rows limit as limit maximum and default', async () => {
    const res = await get('/datastore/query/schema', 'datastore-query-schema-get');
    const schema = res.json();
    expect(schema.title).toBe('Datastore Query');
    expect(schema.properties.limit).toMatchObject({ type: 'integer', maximum: 10000, default: 500 });
    expect(schema.definitions.expression.properties.operator.enum).toEqual([
      '+',
      '-',
      '*',
      '/',
      '%',
      'sum',
      'count',
      'avg',
      'max',
      'min',
    ]);
  });
});

describe('the echo', () => {
  it('keeps unknown keys and the SPEC.md sort as sent', async () => {
    const body = await envelope(app, `${base}?limit=1&sort=${enc('state desc')}&foo=bar`);
    expect(body.query).toMatchObject({ limit: 1, sort: 'state desc', foo: 'bar' });
  });
});

describe("mockyard's own OpenAPI document", () => {
  it('lists the POST operations with query.json as request body, and the extra routes', async () => {
    const doc = (await app.inject('/openapi.json')).json() as {
      paths: Record<
        string,
        Record<
          string,
          {
            operationId?: string;
            requestBody?: { content: Record<string, { schema: { properties: Record<string, unknown> } }> };
          }
        >
      >;
    };
    const ops = Object.entries(doc.paths).flatMap(([p, item]) =>
      Object.entries(item)
        .filter(([m]) => m === 'get' || m === 'post')
        .map(([m, o]) => `${m.toUpperCase()} ${p} ${o.operationId}`),
    );
    for (const expected of [
      'POST /datastore/query datastore-query-post',
      'GET /datastore/query datastore-query-get',
      'POST /datastore/query/{datasetId}/{index} datastore-datasetindex-query-post',
      'POST /datastore/query/{distributionId} datastore-resource-query-post',
      'GET /datastore/query/{distributionId}/download datastore-resource-query-download-get',
      'GET /datastore/query/{datasetId}/{index}/download datastore-datasetindex-query-download-get',
      'GET /datastore/query/download datastore-query-download-get',
      'GET /datastore/query/schema datastore-query-schema-get',
    ]) {
      expect(ops).toContain(expected);
    }
    const body = doc.paths['/datastore/query']!.post!.requestBody!.content['application/json']!.schema;
    expect(Object.keys(body.properties)).toEqual(
      expect.arrayContaining([
        'resources',
        'properties',
        'conditions',
        'joins',
        'groupings',
        'sorts',
        'limit',
        'format',
        'rowIds',
      ]),
    );
    const single =
      doc.paths['/datastore/query/{distributionId}']!.post!.requestBody!.content['application/json']!.schema;
    expect(Object.keys(single.properties)).not.toContain('joins');
    // The hidden case-insensitive AGCO route stays out of the document.
    expect(
      Object.keys(doc.paths)
        .filter((p) => /stringdefinitions/i.test(p))
        .sort(),
    ).toEqual(['/api/v2/StringDefinitions', '/api/v2/StringDefinitions/{ID}']);
  });
});

describe('hostile POST bodies', () => {
  it('never answer 5xx, and every error is a DKAN error body', async () => {
    const fc = (await import('fast-check')).default;
    const key = fc.constantFrom(
      'resources',
      'properties',
      'conditions',
      'joins',
      'groupings',
      'limit',
      'offset',
      'sorts',
      'count',
      'results',
      'schema',
      'keys',
      'format',
      'rowIds',
      'expression',
      'operands',
      'operator',
      'property',
      'resource',
      'alias',
      'value',
      'groupOperator',
      'id',
      'order',
    );
    const leaf = fc.oneof(
      fc.constantFrom(
        't',
        'state',
        'sample',
        'facility_id',
        'record_number',
        'sum',
        'count',
        '+',
        '/',
        'in',
        'match',
        'asc',
        'csv',
        hospitalsDist,
        qualityDist,
        't.state',
        '',
      ),
      fc.integer({ min: -5, max: 20000 }),
      fc.boolean(),
      fc.constant(null),
      fc.double(),
    );
    const { tree } = fc.letrec((tie) => ({
      tree: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        leaf,
        fc.array(tie('tree'), { maxLength: 4 }),
        fc.dictionary(key, tie('tree'), { maxKeys: 5 }),
      ),
    }));
    const paths = [
      [base, 'datastore-datasetindex-query-post'],
      ['/datastore/query', 'datastore-query-post'],
      [`/datastore/query/${qualityDist}/download`, 'datastore-resource-query-download-post'],
    ] as const;
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(key, tree, { maxKeys: 8 }),
        fc.constantFrom(...paths),
        async (body, [path, op]) => {
          const res = await app.inject({
            method: 'POST',
            url: `/dkan${path}`,
            payload: JSON.stringify(body),
            headers: { 'content-type': 'application/json' },
          });
          expect(res.statusCode, `${JSON.stringify(body)} -> ${res.body.slice(0, 300)}`).toBeLessThan(500);
          expectContract(op, res);
        },
      ),
      { numRuns: 300, seed: 20261123 },
    );
  });
});
