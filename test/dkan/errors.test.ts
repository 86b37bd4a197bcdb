// DKAN's own error bodies: 404s for unknown datasets/indexes/distributions, 400 schema failures, bounds.
import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers/app.js';
import { expectContract } from '../helpers/contract.js';
import { LIMITS } from '../../src/areas/dkan/parse.js';
import { bracket, catalog, datasetWith, enc, OP_DIST, OP_INDEX, query } from './helpers.js';

const { app } = await testApp();
const { app: small } = await testApp({ dkanMaxLimit: 50 });
const hospitals = datasetWith(await catalog(app), 'hospital_overall_rating');
const base = `/datastore/query/${hospitals.id}/0`;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/;

async function schemaFailure(qs: string, keyword: string, pointer: string, on = app) {
  const res = await on.inject(`/dkan${base}?${qs}`);
  expectContract(OP_INDEX, res);
  expect(res.statusCode, res.body).toBe(400);
  const body = res.json();
  expect(body).toEqual({
    message: 'JSON Schema validation failed.',
    status: 400,
    timestamp: expect.stringMatching(TIMESTAMP),
    data: { keyword, pointer, message: expect.any(String) },
  });
  return body as { data: { message: string } };
}

describe('404s', () => {
  it('unknown dataset, unknown index and non-numeric index answer only a message', async () => {
    for (const [id, index] of [
      ['no-such-dataset', '0'],
      [hospitals.id, '5'],
      [hospitals.id, 'abc'],
    ] as const) {
      const res = await query(app, `/datastore/query/${id}/${index}`, 404);
      expect(res.json()).toEqual({ message: `No resource found for dataset ${id} at index ${index}` });
    }
  });
  it('unknown distribution answers message, status and timestamp', async () => {
    const res = await query(app, '/datastore/query/00000000-0000-0000-0000-000000000000', 404);
    expect(res.json()).toEqual({
      message: 'Error retrieving metadata: distribution 00000000-0000-0000-0000-000000000000 not found.',
      status: 404,
      timestamp: expect.stringMatching(TIMESTAMP),
    });
  });
  it('unknown paths under /dkan answer in DKAN style, not the platform 404', async () => {
    const res = await app.inject('/dkan/api/nothing');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ status: 404, message: expect.stringContaining('/dkan/api/nothing') });
  });
});

describe('400 JSON Schema validation failed', () => {
  it('limit above the maximum, below 1, or not a number', async () => {
    await schemaFailure('limit=10001', 'maximum', 'limit');
    await schemaFailure('limit=0', 'minimum', 'limit');
    await schemaFailure('limit=ten', 'type', 'limit');
  });
  it('the maximum follows --dkan-max-limit', async () => {
    await schemaFailure('limit=51', 'maximum', 'limit', small);
    expect((await small.inject(`/dkan${base}?limit=50`)).statusCode).toBe(200);
    const res = await small.inject(`/dkan${base}`);
    expect(res.json().query.limit).toBe(50);
  });
  it('negative offset', async () => {
    await schemaFailure('offset=-1', 'minimum', 'offset');
  });
  it('unknown operator, with the pointer into nested groups', async () => {
    await schemaFailure(bracket(0, 'state', 'CA', 'equals'), 'enum', 'conditions/0/operator');
    const json = JSON.stringify([
      { property: 'state', value: 'CA' },
      {
        groupOperator: 'or',
        conditions: [
          { property: 'state', value: 'TX' },
          { property: 'state', value: 'NY', operator: '!=' },
        ],
      },
    ]);
    await schemaFailure(`conditions=${enc(json)}`, 'enum', 'conditions/1/conditions/1/operator');
  });
  it('malformed JSON conditions', async () => {
    await schemaFailure(`conditions=${enc('[{"property":')}`, 'type', 'conditions');
  });
  it('sort order outside asc/desc', async () => {
    await schemaFailure('sorts[0][property]=state&sorts[0][order]=up', 'enum', 'sorts/0/order');
  });
  it('values are bound, so quotes and wildcards in values are data', async () => {
    const res = await query(app, `${base}?${bracket(0, 'state', "CA' OR '1'='1")}`);
    expect(res.json().count).toBe(0);
  });
  it(`refuses condition groups deeper than ${LIMITS.groupDepth} levels and more than ${LIMITS.conditions} conditions`, async () => {
    let nested: unknown = { property: 'state', value: 'CA' };
    for (let i = 0; i < LIMITS.groupDepth; i++) nested = { groupOperator: 'and', conditions: [nested] };
    expect((await app.inject(`/dkan${base}?conditions=${enc(JSON.stringify([nested]))}`)).statusCode).toBe(200);
    await schemaFailure(
      `conditions=${enc(JSON.stringify([{ groupOperator: 'and', conditions: [nested] }]))}`,
      'maxDepth',
      `conditions/0${'/conditions/0'.repeat(LIMITS.groupDepth)}`,
    );
    const many = Array.from({ length: LIMITS.conditions + 1 }, () => ({ property: 'state', value: 'CA' }));
    await schemaFailure(`conditions=${enc(JSON.stringify(many))}`, 'maxItems', `conditions/${LIMITS.conditions}`);
  });
  it('in/between without a list, format outside json/csv, flags that are not booleans', async () => {
    await schemaFailure(bracket(0, 'state', 'CA', 'in'), 'type', 'conditions/0/value');
    await schemaFailure(bracket(0, 'hospital_overall_rating', ['1'], 'between'), 'type', 'conditions/0/value');
    await schemaFailure('format=xml', 'enum', 'format');
    await schemaFailure('keys=maybe', 'type', 'keys');
  });
});

async function plainFailure(qs: string, message: string) {
  const res = await query(app, `${base}?${qs}`, 400);
  expect(res.json()).toEqual({ message, status: 400, timestamp: expect.stringMatching(TIMESTAMP) });
}

describe('other DKAN 400s', () => {
  // AbstractDatabaseTable.php 231-236 and 248: MySQL's unknown-column error, sanitised, without `data`.
  it('unknown columns in conditions, sorts, properties and groupings: "Column not found." (and never reach SQL)', async () => {
    await plainFailure(bracket(0, 'state"; DROP TABLE x; --', 'CA'), 'Column not found.');
    await plainFailure('sorts[0][property]=nope&sorts[0][order]=asc', 'Column not found.');
    await plainFailure(`sort=${enc('state,nope desc')}`, 'Column not found.');
    await plainFailure('properties[]=state&properties[]=nope', 'Column not found.');
    await plainFailure('properties[]=nope&groupings[]=nope', 'Column not found.');
  });
  // SelectFactory.php 171-176: a string property with a table prefix.
  it('a property with a table prefix: "Unsafe property name"', async () => {
    await plainFailure('properties[0]=t.state', 'Unsafe property name: t.state');
  });
  // AbstractQueryController.php 246-247, 249-251 and 270-272.
  it("record_number in properties, rowIds with properties, resources or joins, with DKAN's messages", async () => {
    const recordNumber =
      'The record_number property is for internal use and cannot be requested directly. Set rowIds to true and remove properties from your query to see the full table with row IDs.';
    await plainFailure('properties[]=record_number', recordNumber);
    await plainFailure('properties[0][resource]=t&properties[0][property]=record_number', recordNumber);
    await plainFailure(
      'rowIds=true&properties[]=state',
      'The rowIds property cannot be set to true if you are requesting specific properties.',
    );
    expect((await query(app, `${base}?rowIds=false&properties[]=state&limit=1`)).json().results).toHaveLength(1);
    const joins =
      'Joins are not available and resources should not be explicitly passed when using the resource query endpoint. Try /api/1/datastore/query.';
    await plainFailure('resources[0][id]=x&resources[0][alias]=t', joins);
    await plainFailure('joins[0][resource]=x', joins);
  });
  // SelectFactory.php 396-397: a sort needs its order.
  it('a sort without an order: "Invalid sort."', async () => {
    await plainFailure('sorts[0][property]=state', 'Invalid sort.');
  });
});

describe('strictness: what real DKAN rejects is rejected', () => {
  // query.json 196-212: the operator enum is case-sensitive.
  it('operators are lower case only', async () => {
    await schemaFailure(bracket(0, 'state', 'CA%', 'LIKE'), 'enum', 'conditions/0/operator');
    await schemaFailure(bracket(0, 'state', 'CA', 'Starts With'), 'enum', 'conditions/0/operator');
    await schemaFailure(
      `conditions[0][groupOperator]=OR&${bracket(0, 'state', 'CA', '=', 'conditions[0][conditions]')}`,
      'enum',
      'conditions/0/groupOperator',
    );
  });
  // query.json 267-271: sort order enum ["asc", "desc"], "Order to sort in, lowercase."
  it('sort order DESC is refused', async () => {
    await schemaFailure('sorts[0][property]=state&sorts[0][order]=DESC', 'enum', 'sorts/0/order');
  });
  // json-schema coercion (AbstractQueryController.php 336-341) turns only "true"/"false" into booleans.
  it('booleans are true or false only', async () => {
    for (const qs of ['schema=0', 'schema=1', 'count=False', 'keys=TRUE', 'rowIds=yes'])
      await schemaFailure(qs, 'type', qs.split('=')[0]!);
  });
  // query.json 119-124: format enum ["csv", "json"].
  it('format is lower case', async () => {
    await schemaFailure('format=CSV', 'enum', 'format');
  });
});

describe('forced errors', () => {
  const probe = {
    inject: (url: string) =>
      app.inject({ url: url.replace(/[?&]s=(\d+)$/, ''), headers: { prefer: `code=${/s=(\d+)$/.exec(url)![1]}` } }),
  };
  it('can be forced to its documented 400 and 404, and to 500 and 503, on every query operation', async () => {
    const dist = hospitals.resources[0]!.distributionId;
    for (const [method, url] of [
      ['GET', `/dkan${base}`],
      ['GET', `/dkan/datastore/query/${dist}`],
      ['POST', '/dkan/datastore/query'],
      ['GET', `/dkan/datastore/query/${dist}/download`],
      ['POST', `/dkan${base}`],
    ] as const) {
      const res = await app.inject({ method, url, headers: { prefer: 'code=418' } });
      expect(res.headers['mockyard-error']).toContain('the statuses it can be forced to are: 400, 404, 500, 503');
    }
  });
  it('answers each with the natural body', async () => {
    const r404 = await probe.inject(`/dkan${base}?s=404`);
    expectContract(OP_INDEX, r404);
    expect(r404.statusCode).toBe(404);
    expect(r404.json()).toEqual({ message: `No resource found for dataset ${hospitals.id} at index 0` });
    const r400 = await probe.inject(`/dkan${base}?s=400`);
    expectContract(OP_INDEX, r400);
    expect(r400.json()).toEqual({
      message: expect.stringContaining(hospitals.resources[0]!.distributionId),
      status: 400,
      timestamp: expect.stringMatching(TIMESTAMP),
    });
    const d404 = await probe.inject(`/dkan/datastore/query/${hospitals.resources[0]!.distributionId}?s=404`);
    expectContract(OP_DIST, d404);
    expect(d404.json()).toMatchObject({
      message: `Error retrieving metadata: distribution ${hospitals.resources[0]!.distributionId} not found.`,
      status: 404,
    });
    const d400 = await probe.inject(`/dkan/datastore/query/${hospitals.resources[0]!.distributionId}?s=400`);
    expectContract(OP_DIST, d400);
    expect(d400.statusCode).toBe(400);
  });
});
