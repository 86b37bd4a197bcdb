// /datastore/sql: DKAN's bracket grammar (the cases of DKAN's own SqlParserTest), its error answers, and the
// same rows as the equivalent /datastore/query.
import { describe, expect, it } from 'vitest';
import { parseBracketSql } from '../../src/areas/dkan/sql-grammar.js';
import { expectContract } from '../helpers/contract.js';
import { testApp } from '../helpers/app.js';
import { catalog, datasetWith, type Row } from './helpers.js';

const { app } = await testApp();
const datasets = await catalog(app);
const hospitals = datasetWith(datasets, 'facility_name');
const id = hospitals.resources[0]!.distributionId;

async function sql(query: string, extra = '', status = 200) {
  const res = await app.inject(`/dkan/datastore/sql?query=${encodeURIComponent(query)}${extra}`);
  expectContract('datastore-sql', res);
  expect(res.statusCode, res.body.slice(0, 300)).toBe(status);
  return res;
}

describe('grammar', () => {
  // modules/datastore/tests/src/Unit/SqlParser/SqlParserTest.php::dataTestSqlParser.
  const dkanCases: [string, boolean][] = [
    ['foo', false],
    ['[SELECT * FROM abc];', true],
    ['[SELECT *a FROM abc];', false],
    ['[SELECT abc FROM abc];', true],
    ['[SELECT abc,def FROM abc];', true],
    ['[SELECT abc, def FROM abc];', false],
    ['[SELECT * FROM abc][WHERE def = "hij"];', true],
    ['[SELECT * FROM abc][ORDER BY qrs ASC];', true],
    ['[SELECT * FROM abc][ORDER BY qrs,tuv DESC][LIMIT 1 OFFSET 2];', true],
    ['[SELECT * FROM abc][LIMIT 1 OFFSET 2];', true],
    ['[SELECT * FROM abc][WHERE def = "hij" AND klm = "nop"];', true],
    ['[SELECT * FROM abc][WHERE def = "hij" AND klm = "nop"][ORDER BY qrs ASC];', true],
    ['[SELECT * FROM abc][WHERE def = "hij" AND klm = "nop"][ORDER BY qrs, tuv];', false],
    ['[SELECT * FROM abc][WHERE def = "hij" AND klm = "nop"][ORDER BY qrs,tuv DESC];', true],
    ['[SELECT * FROM abc][WHERE def = "hij" AND klm = "nop"][ORDER BY qrs,tuv][LIMIT 1];', false],
    ['[SELECT * FROM abc][WHERE def = "hij" AND klm = "nop"][ORDER BY qrs,tuv ASC][LIMIT 1 OFFSET 2];', true],
  ];
  it.each(dkanCases)('%s is %s as in DKAN', (text, valid) => {
    expect(parseBracketSql(text) !== null).toBe(valid);
  });

  it('reads the clauses into a statement', () => {
    expect(
      parseBracketSql('[SELECT a,b FROM x-1][LIMIT 3 OFFSET 4][WHERE c == "d e" AND f = "g"][ORDER BY a,b DESC];'),
    ).toEqual({
      select: ['a', 'b'],
      table: 'x-1',
      where: [
        { property: 'c', value: 'd e' },
        { property: 'f', value: 'g' },
      ],
      orderBy: { properties: ['a', 'b'], desc: true },
      limit: { limit: 3, offset: 4 },
    });
    for (const bad of [
      '[select * FROM abc];',
      '[SELECT * FROM abc][LIMIT 1][LIMIT 2];',
      '[SELECT * FROM abc][LIMIT x];',
      '[SELECT * FROM abc]; ',
    ])
      expect(parseBracketSql(bad), bad).toBeNull();
  });
});

describe('answers', () => {
  it('returns the same rows as the equivalent /datastore/query', async () => {
    const text = `[SELECT facility_id,facility_name,state FROM ${id}][WHERE state = "TX" AND emergency_services = "Yes"][ORDER BY facility_name DESC][LIMIT 7 OFFSET 3];`;
    const viaSql = (await sql(text, '&show_db_columns')).json() as Row[];
    const q =
      'properties[]=facility_id&properties[]=facility_name&properties[]=state' +
      '&conditions[0][property]=state&conditions[0][value]=TX&conditions[0][operator]==' +
      '&conditions[1][property]=emergency_services&conditions[1][value]=Yes&conditions[1][operator]==' +
      '&sorts[0][property]=facility_name&sorts[0][order]=desc&limit=7&offset=3';
    const viaQuery = (await app.inject(`/dkan/datastore/query/${id}?${q}`)).json() as { results: Row[] };
    expect(viaSql.length).toBe(7);
    expect(viaSql).toEqual(viaQuery.results);
  });

  it('keys rows by column description, or by machine name with record_number under show_db_columns', async () => {
    const described = (await sql(`[SELECT * FROM ${id}][LIMIT 2];`)).json() as Row[];
    expect(Object.keys(described[0]!)).toContain('Facility Name');
    expect(described[0]).not.toHaveProperty('record_number');
    const machine = (await sql(`[SELECT * FROM ${id}][LIMIT 2];`, '&show-db-columns')).json() as Row[];
    expect(Object.keys(machine[0]!)[0]).toBe('record_number');
    expect(machine[0]).toHaveProperty('facility_name');
  });

  it('counts with COUNT(*) as DKAN’s expression, ignoring LIMIT', async () => {
    const all = (await sql(`[SELECT COUNT(*) FROM ${id}][LIMIT 1];`)).json();
    expect(all).toEqual([{ expression: String(hospitals.resources[0]!.rows) }]);
    const al = (await sql(`[SELECT COUNT(*) FROM ${id}][WHERE state = "AL"];`)).json();
    const count = (
      await app.inject(
        `/dkan/datastore/query/${id}?conditions[0][property]=state&conditions[0][value]=AL&results=false`,
      )
    ).json().count;
    expect(al).toEqual([{ expression: String(count) }]);
  });

  it('limits rows to 500 without LIMIT and caps a larger LIMIT at the row limit', async () => {
    expect(((await sql(`[SELECT facility_id FROM ${id}];`)).json() as Row[]).length).toBe(500);
    expect(((await sql(`[SELECT facility_id FROM ${id}][LIMIT 20000];`)).json() as Row[]).length).toBe(
      hospitals.resources[0]!.rows,
    );
  });

  it('takes the statement as a POST JSON body', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/dkan/datastore/sql',
      payload: JSON.stringify({ query: `[SELECT state FROM ${id}][LIMIT 1 OFFSET 0];`, show_db_columns: true }),
      headers: { 'content-type': 'application/json' },
    });
    expectContract('datastore-sql-post', res);
    expect(res.json()).toEqual([{ state: expect.any(String) }]);
  });
});

describe('errors in DKAN’s body', () => {
  it.each([
    ['', "Missing 'query' query parameter"],
    ['[SELECT * FROM abc] ;', 'Invalid query string.'],
    ['[SELECT * FROM abc][WHERE a = "x"; DROP TABLE y"];', 'Invalid query string.'],
    ['[SELECT * FROM no-such-id];', 'Could not find identifier and version for no-such-id'],
    [`[SELECT nope FROM ${id}];`, 'Column not found.'],
    [`[SELECT * FROM ${id}][WHERE nope = "x"];`, 'Column not found.'],
  ])('%s -> %s', async (text, message) => {
    const res = await sql(text, '', 400);
    expect(res.json()).toMatchObject({ message, status: 400, timestamp: expect.any(String) });
  });

  it('answers a POST without query', async () => {
    const res = await app.inject({ method: 'POST', url: '/dkan/datastore/sql', payload: 'not json' });
    expectContract('datastore-sql-post', res);
    expect(res.json()).toMatchObject({ message: "Missing 'query' property in the request's body.", status: 400 });
  });
});
