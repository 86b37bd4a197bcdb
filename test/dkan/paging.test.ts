// Sorting, limit/offset/count, properties and the output flags (keys, rowIds, count, results, schema, format=csv).
import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers/app.js';
import { bracket, catalog, datasetWith, enc, envelope, fputcsv, query, type Row } from './helpers.js';

const { app } = await testApp();
const datasets = await catalog(app);
const hospitals = datasetWith(datasets, 'hospital_overall_rating');
const nadac = datasetWith(datasets, 'nadac_per_unit');
const base = `/datastore/query/${hospitals.id}/0`;
const columns = hospitals.resources[0]!.columns.map((c) => c.name);

const rows = async (qs: string) => (await envelope(app, `${base}?${qs}`)).results as Row[];

describe('sorting', () => {
  it('without a sort returns rows in record_number order', async () => {
    const r = await rows('limit=50&rowIds=true');
    expect(r.map((x) => Number(x.record_number))).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  });
  it('sorts integer columns numerically (shorthand sort=<field> desc)', async () => {
    const r = await rows(`sort=${enc('hospital_overall_rating desc')}&limit=5000&properties[]=hospital_overall_rating`);
    const values = r
      .map((x) => x.hospital_overall_rating!)
      .filter((v) => v !== '')
      .map(Number);
    expect(values.length).toBeGreaterThan(100);
    for (let i = 1; i < values.length; i++) expect(values[i - 1]!).toBeGreaterThanOrEqual(values[i]!);
  });
  it('applies several keys in order, comma separated, and agrees with sorts[i][property]/[order]', async () => {
    const spec = await rows(`sort=${enc('state,facility_name desc')}&limit=300`);
    const dkan = await rows(
      'sorts[0][property]=state&sorts[0][order]=asc&sorts[1][property]=facility_name&sorts[1][order]=desc&limit=300',
    );
    expect(dkan).toEqual(spec);
    for (let i = 1; i < spec.length; i++) {
      const [a, b] = [spec[i - 1]!, spec[i]!];
      expect(a.state!.localeCompare(b.state!)).toBeLessThanOrEqual(0);
      if (a.state === b.state) expect(a.facility_name!.toLowerCase() >= b.facility_name!.toLowerCase()).toBe(true);
    }
  });
  it('takes sort items as JSON text, as Swagger UI sends an array of objects', async () => {
    // Every sort names its order: DKAN answers "Invalid sort." without one (SelectFactory.php 396-397).
    const dkan = await rows(
      'sorts[0][property]=state&sorts[0][order]=asc&sorts[1][property]=facility_name&sorts[1][order]=desc&limit=300',
    );
    const items = await rows(
      `sorts=${enc('{"property":"state","order":"asc"}')}&sorts=${enc('{"property":"facility_name","order":"desc"}')}&limit=300`,
    );
    const whole = await rows(
      `sorts=${enc('[{"property":"state","order":"asc"},{"property":"facility_name","order":"desc"}]')}&limit=300`,
    );
    expect(items).toEqual(dkan);
    expect(whole).toEqual(dkan);
    const bad = await query(app, `${base}?sorts=${enc('{"property":')}`, 400);
    expect(bad.json().data).toMatchObject({ keyword: 'type', pointer: 'sorts/0' });
    await query(app, `${base}?sorts=${enc('{"property":"nope"}')}`, 400);
  });
  it('sorts decimals numerically on the large dataset, using a condition', async () => {
    const first = (await envelope(app, `/datastore/query/${nadac.id}/0?limit=1&properties[]=ndc_description`))
      .results as Row[];
    const body = await envelope(
      app,
      `/datastore/query/${nadac.id}/0?${bracket(0, 'ndc_description', first[0]!.ndc_description!)}&sorts[0][property]=nadac_per_unit&sorts[0][order]=desc&limit=100&offset=200`,
    );
    const prices = (body.results as Row[]).map((r) => Number(r.nadac_per_unit));
    for (let i = 1; i < prices.length; i++) expect(prices[i - 1]!).toBeGreaterThanOrEqual(prices[i]!);
    // Echoed as sent (Query.php 68).
    expect(body.query.sorts).toEqual([{ property: 'nadac_per_unit', order: 'desc' }]);
  });
});

describe('limit, offset and count', () => {
  it('defaults to limit 500 offset 0 and counts every row', async () => {
    const body = await envelope(app, base);
    expect(body.results).toHaveLength(500);
    expect(body.count).toBe(hospitals.resources[0]!.rows);
    expect(body.query).toMatchObject({
      limit: 500,
      offset: 0,
      keys: true,
      count: true,
      results: true,
      schema: true,
      format: 'json',
      rowIds: false,
    });
  });
  it('pages without overlap or gaps, with count independent of paging', async () => {
    const sorted = `sort=${enc('state,hospital_overall_rating desc')}`;
    const whole = await envelope(app, `${base}?${sorted}&limit=120&rowIds=true`);
    const pages: Row[] = [];
    for (let offset = 0; offset < 120; offset += 50) {
      const page = await envelope(
        app,
        `${base}?${sorted}&limit=${Math.min(50, 120 - offset)}&offset=${offset}&rowIds=true`,
      );
      expect(page.count).toBe(whole.count);
      pages.push(...(page.results as Row[]));
    }
    expect(pages).toEqual(whole.results);
  });
  // json-schema's coercion (AbstractQueryController.php 336-341) turns "7" into 7 and "true"/"false" into booleans.
  it('coerces numeric and boolean text like DKAN and echoes typed values', async () => {
    const body = await envelope(app, `${base}?limit=7&offset=3&count=false&schema=false`);
    expect(body.query).toMatchObject({ limit: 7, offset: 3, count: false, schema: false });
    expect(body).not.toHaveProperty('count');
    expect(body).not.toHaveProperty('schema');
  });
  it('allows a limit up to 10000', async () => {
    expect((await envelope(app, `${base}?limit=10000&properties[]=state`)).results).toHaveLength(
      hospitals.resources[0]!.rows,
    );
  });
});

describe('output flags', () => {
  // Query.php 81-96: the schema key is the whole table schema of each queried resource, whatever is selected.
  it('properties selects and orders the returned columns; the schema lists the whole table', async () => {
    const body = await envelope(app, `${base}?limit=3&properties[]=state&properties[]=facility_id`);
    for (const r of body.results as Row[]) expect(Object.keys(r)).toEqual(['state', 'facility_id']);
    expect(Object.keys(Object.values(body.schema!)[0]!.fields)).toEqual(columns);
    expect(body.query.properties).toEqual(['state', 'facility_id']);
  });
  it('keys=false returns value arrays in property order', async () => {
    const objects = await rows('limit=5');
    const arrays = (await envelope(app, `${base}?limit=5&keys=false`)).results as string[][];
    expect(arrays).toEqual(objects.map((o) => columns.map((c) => o[c])));
  });
  it('rowIds=true adds record_number and the primary key, and leaves properties out of the echo', async () => {
    const body = await envelope(app, `${base}?limit=2&offset=10&rowIds=true`);
    const r = body.results as Row[];
    expect(Object.keys(r[0]!)).toEqual(['record_number', ...columns]);
    expect(r.map((x) => x.record_number)).toEqual(['11', '12']);
    expect(Object.values(body.schema!)[0]!['primary key']).toEqual(['record_number']);
    // DatabaseTable.php 155-161 and 251-263: the auto-increment key, empty values filtered out.
    expect(Object.values(body.schema!)[0]!.fields.record_number).toEqual({
      type: 'serial',
      unsigned: true,
      'not null': true,
      mysql_type: 'int',
    });
    // Query.php 235-238 fills in properties only without rowIds.
    expect(body.query).not.toHaveProperty('properties');
  });
  it('results=false, count=false and schema=false drop their keys; query always stays', async () => {
    const body = await envelope(app, `${base}?results=false&count=false&schema=false`);
    expect(Object.keys(body)).toEqual(['query']);
    const onlyCount = await envelope(app, `${base}?results=false&schema=false`);
    expect(onlyCount).toEqual({ count: hospitals.resources[0]!.rows, query: expect.any(Object) });
  });
  it('groupings returns one row per group and counts groups', async () => {
    const body = await envelope(app, `${base}?groupings[]=state&properties[]=state&limit=100`);
    const states = (body.results as Row[]).map((r) => r.state);
    expect(new Set(states).size).toBe(states.length);
    const everyState = new Set((await rows('limit=10000&properties[]=state')).map((r) => r.state));
    expect(body.count).toBe(everyState.size);
  });
  // AbstractQueryController.php 354-375: the header row holds each property's column description
  // (csv_headers_mode resource_headers, the default); rows are written by PHP's fputcsv.
  it('format=csv answers text/csv with the column descriptions as header row and the same rows', async () => {
    const res = await query(
      app,
      `${base}?format=csv&limit=4&properties[]=facility_id&properties[]=facility_name&properties[]=hospital_overall_rating`,
    );
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    expect(res.headers['content-disposition']).toBe('attachment; filename="data.csv"');
    const lines = res.body.trim().split('\n');
    expect(lines[0]).toBe('"Facility ID","Facility Name","Hospital overall rating"');
    const json = await rows(
      'limit=4&properties[]=facility_id&properties[]=facility_name&properties[]=hospital_overall_rating',
    );
    expect(lines.slice(1)).toEqual(
      json.map((r) => fputcsv([r.facility_id!, r.facility_name!, r.hospital_overall_rating!])),
    );
  });
});
