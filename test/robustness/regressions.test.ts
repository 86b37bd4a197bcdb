// Bugs the fuzzer and the injection corpus found, each pinned by the request that showed it.
import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers/app.js';
import { enc, errorShapeProblem, loadCatalog } from './fuzz-lib.js';

const { app, store } = await testApp();
const cat = await loadCatalog(app, store);

describe('names of Object.prototype members are plain values', () => {
  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])(
    'MarketCheck country=%s is a 400 naming the parameter',
    async (v) => {
      const res = await app.inject(`/marketcheck/popular/cars?api_key=k&car_type=used&country=${v}`);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        code: 400,
        message: `Invalid value "${v}" for parameter country: use us, ca, US or CA`,
      });
    },
  );

  it.each(['constructor', '__proto__', 'hasOwnProperty'])('AGCO Accept: %s falls back to JSON', async (accept) => {
    const res = await app.inject({
      url: '/agco/api/v2/StringDefinitions?limit=1',
      headers: { authorization: `Bearer ${cat.agco.tokens[0]}`, accept },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
  });

  it('the journal keeps query keys named constructor and __proto__', async () => {
    await app.inject('/dkan/datastore/query/x/0?constructor=a&__proto__=b&toString=c&toString=d');
    const res = await app.inject('/__mockyard/requests?limit=1');
    expect(res.statusCode).toBe(200);
    const query = (JSON.parse(res.body) as { requests: { query: object }[] }).requests[0]!.query;
    expect(Object.entries(query)).toEqual([
      ['constructor', 'a'],
      ['__proto__', 'b'],
      ['toString', ['c', 'd']],
    ]);
  });
});

describe("DKAN match: placeholders and values line up whatever the terms' order", () => {
  const dk = cat.dkan[0]!;
  const col = dk.columns[0]!;
  const base = `/dkan/datastore/query/${dk.datasetId}/${dk.index}?limit=50&properties=${enc(col)}`;

  it.each([
    [
      'an optional term before an excluded one',
      'tablet -acetaminophen',
      (t: string) => t.includes('tablet') && !t.includes('acetaminophen'),
    ],
    ['an excluded term before a required one', '-tablet +mg', (t: string) => !t.includes('tablet') && t.includes('mg')],
    ['optional, required, excluded', 'oral +tablet -er', (t: string) => t.includes('tablet') && !/er/.test(t)],
  ])('%s (%s)', async (_, query, fits) => {
    const res = await app.inject(
      `${base}&conditions[0][property]=${enc(col)}&conditions[0][operator]=match&conditions[0][value]=${enc(query)}`,
    );
    expect(res.statusCode).toBe(200);
    const rows = res.json().results as Record<string, string>[];
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) expect(fits(r[col]!.toLowerCase()), r[col]).toBe(true);
  });
});

describe('App Center error messages', () => {
  it('end in exactly one full stop before the correlation id, also for platform messages', async () => {
    const res = await app.inject(`/appcenter/v0.1/apps/${'o'.repeat(1100)}/a/releases`);
    expect(res.statusCode).toBe(414);
    expect(errorShapeProblem('appcenter', res)).toBeUndefined();
    expect(res.json().message).toMatch(/too long\. Correlation ID/);
  });
});

describe('DKAN match stays within SQLite expression limits', () => {
  const ds = '64a7a500-244b-5d74-a23c-d84bc7dec470';
  const match = (words: number, columns = 'ndc_description') =>
    app.inject(
      `/dkan/datastore/query/${ds}/1?limit=1&conditions=${encodeURIComponent(JSON.stringify([{ property: columns, value: Array.from({ length: words }, (_, i) => `w${i}`).join(' '), operator: 'match' }]))}`,
    );

  it('serves 100 words', async () => {
    expect((await match(100)).statusCode).toBe(200);
  });

  it.each([101, 1500])("answers %i words with DKAN's 400, not a 500", async (words) => {
    const res = await match(words);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      message: 'JSON Schema validation failed.',
      data: { keyword: 'maxItems', pointer: 'conditions/0/value' },
    });
  });

  it('answers more than 20 columns with a 400', async () => {
    const res = await match(1, Array.from({ length: 21 }, () => 'ndc').join(','));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ data: { keyword: 'maxItems', pointer: 'conditions/0/property' } });
  });
});

describe('DKAN patterns stay within SQLite LIKE limits', () => {
  const ds = '64a7a500-244b-5d74-a23c-d84bc7dec470';
  // POSTed: a query string this long is over the URL limit (414) before the pattern is read.
  const post = (operator: string, value: string) =>
    app.inject({
      method: 'POST',
      url: `/dkan/datastore/query/${ds}/1`,
      payload: { limit: 1, conditions: [{ property: 'ndc_description', operator, value }] },
    });

  it.each(['like', 'contains', 'starts with'])(
    "answers a %s pattern over SQLite's 50,000 bytes with DKAN's 400, not a 500",
    async (operator) => {
      const res = await post(operator, `%${'a'.repeat(50_000)}`);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({
        message: 'JSON Schema validation failed.',
        data: { keyword: 'maxLength', pointer: 'conditions/0/value' },
      });
    },
  );

  it('serves the longest pattern it allows, escaped and wrapped in wildcards', async () => {
    const res = await post('contains', '%'.repeat(8000));
    expect(res.statusCode).toBe(200);
  });
});

describe('DKAN bodies and SQL texts are bounded before they are walked', () => {
  const ds = '64a7a500-244b-5d74-a23c-d84bc7dec470';
  const distribution = async (): Promise<string> => {
    const res = await app.inject({ method: 'POST', url: `/dkan/datastore/query/${ds}/1`, payload: { limit: 1 } });
    return (res.json() as { query: { resources: { id: string }[] } }).query.resources[0]!.id;
  };

  it("answers a query object of more than 100 properties with DKAN's 400, and serves 100", async () => {
    const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 1]));
    const over = await app.inject({ method: 'POST', url: `/dkan/datastore/query/${ds}/1`, payload: keys(101) });
    expect(over.statusCode).toBe(400);
    expect(errorShapeProblem('dkan', over)).toBeUndefined();
    expect(over.json()).toMatchObject({ data: { keyword: 'maxProperties', pointer: '' } });
    const at = await app.inject({ method: 'POST', url: `/dkan/datastore/query/${ds}/1`, payload: keys(100) });
    expect(at.statusCode).toBe(200);
  });

  it("answers a SQL statement over 16,384 characters with DKAN's 400, and parses one just under it", async () => {
    const id = await distribution();
    const sql = (n: number) => `[SELECT ${Array(n).fill('ndc').join(',')} FROM ${id}][LIMIT 1];`;
    const long = sql(20_000);
    expect(long.length).toBeGreaterThan(16_384);
    const over = await app.inject({ method: 'POST', url: '/dkan/datastore/sql', payload: { query: long } });
    expect(over.statusCode).toBe(400);
    expect(errorShapeProblem('dkan', over)).toBeUndefined();
    expect(over.json().message).toContain('at most 16384');
    const under = sql(150);
    const ok = await app.inject({ method: 'POST', url: '/dkan/datastore/sql', payload: { query: under } });
    expect(ok.statusCode).toBe(200);
  });
});

describe('DKAN POST bodies', () => {
  it("answers a body over 256 KiB with DKAN's 413, and serves one just under it", async () => {
    const url = '/dkan/datastore/query/64a7a500-244b-5d74-a23c-d84bc7dec470/0';
    const body = (pad: number) =>
      JSON.stringify({ limit: 1, conditions: [{ property: 'ndc', value: 'x'.repeat(pad) }] });
    const over = await app.inject({ method: 'POST', url, payload: body(256 * 1024) });
    expect(over.statusCode).toBe(413);
    expect(errorShapeProblem('dkan', over)).toBeUndefined();
    const under = await app.inject({ method: 'POST', url, payload: body(200 * 1024) });
    expect(under.statusCode).toBe(200);
  });
});
