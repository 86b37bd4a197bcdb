// Conditions: every operator, both syntaxes, nested groups; expectations computed in JS over the whole resource.
import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers/app.js';
import { bracket, catalog, datasetWith, enc, envelope, type Row } from './helpers.js';

const { app } = await testApp();
const quality = datasetWith(await catalog(app), 'measure_id');
const base = `/datastore/query/${quality.id}/0`;
// The whole resource once, in row order, with record numbers: the reference the filters are checked against.
const all = (await envelope(app, `${base}?limit=10000&rowIds=true&schema=false`)).results as Row[];
const iso = (mdy: string) => (mdy ? `${mdy.slice(6)}-${mdy.slice(0, 2)}-${mdy.slice(3, 5)}` : '');
const num = (s: string | undefined) => (s === '' || s === undefined ? null : Number(s));

async function ids(qs: string): Promise<{ ids: string[]; count: number }> {
  const body = await envelope(app, `${base}?limit=10000&rowIds=true&schema=false&${qs}`);
  return { ids: (body.results as Row[]).map((r) => r.record_number!), count: body.count! };
}

async function expectFilter(qs: string, keep: (r: Row) => boolean) {
  const expected = all.filter(keep).map((r) => r.record_number);
  expect(expected.length, 'the reference filter selects some rows but not all').toBeGreaterThan(0);
  expect(expected.length).toBeLessThan(all.length);
  const got = await ids(qs);
  expect(got.ids).toEqual(expected);
  expect(got.count).toBe(expected.length);
}

const first = all[0]!;

describe('condition operators (bracket form)', () => {
  it('= is the default operator, and ignores letter case like MySQL', async () => {
    await expectFilter(bracket(0, 'measure_id', 'OP_22'), (r) => r.measure_id === 'OP_22');
    await expectFilter(bracket(0, 'measure_id', 'op_22', '='), (r) => r.measure_id === 'OP_22');
  });
  it('<> excludes a value', async () => {
    await expectFilter(bracket(0, 'state', first.state!, '<>'), (r) => r.state !== first.state);
  });
  it('< <= > >= compare integer columns as numbers, not text', async () => {
    await expectFilter(bracket(0, 'sample', '100', '<'), (r) => num(r.sample) !== null && num(r.sample)! < 100);
    await expectFilter(bracket(0, 'sample', '1000', '>='), (r) => num(r.sample) !== null && num(r.sample)! >= 1000);
  });
  it('compares decimal columns as numbers', async () => {
    await expectFilter(bracket(0, 'score', '50.5', '>'), (r) => num(r.score) !== null && num(r.score)! > 50.5);
    await expectFilter(bracket(0, 'score', '9', '<='), (r) => num(r.score) !== null && num(r.score)! <= 9);
  });
  it('compares dates as dates, in the format the column is returned in', async () => {
    await expectFilter(bracket(0, 'start_date', '01/01/2024', '>='), (r) => iso(r.start_date!) >= '2024-01-01');
  });
  it('like passes % wildcards through', async () => {
    await expectFilter(bracket(0, 'measure_name', '%sepsis%', 'like'), (r) => /sepsis/i.test(r.measure_name!));
  });
  it('between takes two values, inclusive', async () => {
    await expectFilter(
      bracket(0, 'sample', ['100', '200'], 'between'),
      (r) => num(r.sample) !== null && num(r.sample)! >= 100 && num(r.sample)! <= 200,
    );
  });
  it('in and not in take a list', async () => {
    await expectFilter(bracket(0, 'state', ['CA', 'TX', 'NY'], 'in'), (r) => ['CA', 'TX', 'NY'].includes(r.state!));
    await expectFilter(bracket(0, 'state', ['CA', 'TX'], 'not in'), (r) => !['CA', 'TX'].includes(r.state!));
  });
  // DKAN wraps the value in % without escaping it (SelectFactory.php 333-340), so % and _ stay wildcards.
  it('contains and starts with wrap the value in %, keeping % and _ in it as wildcards', async () => {
    await expectFilter(bracket(0, 'facility_name', 'MEDICAL', 'contains'), (r) => r.facility_name!.includes('MEDICAL'));
    const prefix = first.facility_name!.slice(0, 4);
    await expectFilter(bracket(0, 'facility_name', prefix, 'starts with'), (r) =>
      r.facility_name!.toUpperCase().startsWith(prefix.toUpperCase()),
    );
    expect((await ids(bracket(0, 'facility_name', '%', 'contains'))).count).toBe(all.length);
    await expectFilter(bracket(0, 'measure_id', 'OP_2_', 'starts with'), (r) => /^OP_2./i.test(r.measure_id!));
  });
  // DKAN runs MATCH ... AGAINST in boolean mode (SelectFactory.php 310-321); mockyard's emulation is a decision in NOTES.md.
  it('match finds any of the words in any of the listed columns', async () => {
    await expectFilter(
      `conditions[0][property]=${enc('measure_name, condition')}&conditions[0][value]=${enc('sepsis vaccination')}&conditions[0][operator]=match`,
      (r) => /sepsis|vaccination/i.test(`${r.measure_name} ${r.condition}`),
    );
  });
  it('is_empty and not_empty need no value', async () => {
    await expectFilter('conditions[0][property]=footnote&conditions[0][operator]=is_empty', (r) => r.footnote === '');
    await expectFilter('conditions[0][property]=score&conditions[0][operator]=not_empty', (r) => r.score !== '');
  });
});

describe('condition syntax', () => {
  it('AND-s top-level conditions', async () => {
    await expectFilter(
      `${bracket(0, 'measure_id', 'OP_22')}&${bracket(1, 'sample', '500', '>')}`,
      (r) => r.measure_id === 'OP_22' && num(r.sample)! > 500,
    );
  });
  it('accepts the whole list as JSON text (the JSON-text form) with the same result as the bracket form', async () => {
    const json = JSON.stringify([
      { property: 'measure_id', value: 'SEP_1' },
      { property: 'sample', value: 1000, operator: '<' },
    ]);
    const a = await ids(`conditions=${enc(json)}`);
    const b = await ids(`${bracket(0, 'measure_id', 'SEP_1')}&${bracket(1, 'sample', '1000', '<')}`);
    expect(a).toEqual(b);
    expect(a.count).toBeGreaterThan(0);
  });
  it('nests groups with groupOperator or/and', async () => {
    const qs =
      'conditions[0][groupOperator]=or' +
      `&${bracket(0, 'measure_id', 'OP_22', '=', 'conditions[0][conditions]')}` +
      `&conditions[0][conditions][1][groupOperator]=and&${bracket(0, 'measure_id', 'SEP_1', '=', 'conditions[0][conditions][1][conditions]')}` +
      `&${bracket(1, 'state', 'CA', '=', 'conditions[0][conditions][1][conditions]')}`;
    await expectFilter(qs, (r) => r.measure_id === 'OP_22' || (r.measure_id === 'SEP_1' && r.state === 'CA'));
    const json = JSON.stringify([
      {
        groupOperator: 'or',
        conditions: [
          { property: 'measure_id', value: 'OP_22' },
          {
            groupOperator: 'and',
            conditions: [
              { property: 'measure_id', value: 'SEP_1' },
              { property: 'state', value: 'CA' },
            ],
          },
        ],
      },
    ]);
    expect(await ids(`conditions=${enc(json)}`)).toEqual(await ids(qs));
  });
  // Query.php 68 echoes the query object as sent (after type coercion), not a normalised copy.
  it('echoes the conditions as sent in query', async () => {
    const body = await envelope(
      app,
      `${base}?limit=1&${bracket(0, 'sample', '500', '>')}&${bracket(1, 'state', 'CA')}`,
    );
    expect(body.query.conditions).toEqual([
      { property: 'sample', value: '500', operator: '>' },
      { property: 'state', value: 'CA' },
    ]);
  });
});
