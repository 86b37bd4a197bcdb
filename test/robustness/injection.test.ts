// SQL injection through every text parameter of every area: a 4xx or a correct empty/unchanged answer,
// and the fixture database byte for byte the same afterwards (the server opens it read-only).
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers/app.js';
import { enc, errorShapeProblem, loadCatalog, type Area } from './fuzz-lib.js';

const { app, store, config } = await testApp();
const dbFile = path.join(config.dataDir, 'mockyard.db');
const sha256 = () => createHash('sha256').update(readFileSync(dbFile)).digest('hex');
const before = { hash: sha256(), mtime: statSync(dbFile).mtimeMs };
const cat = await loadCatalog(app, store);

const PAYLOADS = [
  "'",
  '"',
  "' OR '1'='1",
  "' OR 1=1 --",
  '" OR ""="',
  "') OR ('a'='a",
  '1 OR 1=1',
  "1' AND '1'='2",
  "'; DROP TABLE dkan_datasets; --",
  "'; DELETE FROM agco_definitions; --",
  "1; UPDATE archive_items SET status='ok'; --",
  "' UNION SELECT name FROM sqlite_master --",
  "' UNION SELECT sqlite_version(), 1, 2 --",
  "'; ATTACH DATABASE '/tmp/pwn.db' AS pwn; --",
  "x' || (SELECT hex(randomblob(1000000))) || '",
  "' AND (SELECT COUNT(*) FROM sqlite_master) > 0 --",
  "\\' OR 1=1 --",
  "'' OR ''='",
  '`id`',
  '[ndc]',
  '"ndc" --',
  'ndc; --',
  'ndc DESC; DROP TABLE x',
  'CHAR(39)||CHAR(39)',
  '%27%20OR%201%3D1',
  "admin'#",
  "1' -- ",
  'NEAR(a b)',
  'a OR b AND NOT c',
  '"unterminated',
  '^start',
  'col:value',
  '(((',
] as const;

/**
 * reject: a 4xx. empty: a 4xx or no rows. unchanged: the same rows as `baseline`. words: full-text
 * search, where only the words count: the same rows as the payload's bare words (quotes, operators and
 * SQL punctuation have no effect); text without words matches nothing. boolean: DKAN's `match`
 * (MySQL boolean mode: +required, -excluded, otherwise any-of, each a substring): every row fits.
 */
type Expectation = 'reject' | 'empty' | 'unchanged' | 'words' | 'boolean';
interface Target {
  area: Area;
  parameter: string;
  /** The request with the payload in place, and a request that must give the same rows (for `unchanged`). */
  url(payload: string): string;
  baseline?: string;
  headers?: Record<string, string>;
  expect: Expectation;
}

const mcBase = `/marketcheck/popular/cars?api_key=${enc(cat.marketcheck.apiKeys[0]!)}`;
const access = cat.appcenter.access[0]!;
const acBase = `/appcenter/v0.1/apps/${enc(access.owner)}/${enc(access.app)}/releases`;
const acHeaders = { 'x-api-token': access.token };
const agBase = '/agco/api/v2/StringDefinitions';
const agHeaders = { authorization: `Bearer ${cat.agco.tokens[0]}` };
const dk = cat.dkan[0]!;
const dkBase = `/dkan/datastore/query/${dk.datasetId}/${dk.index}?limit=3`;
const col = dk.columns[0]!;

const TARGETS: Target[] = [
  { area: 'marketcheck', parameter: 'car_type', url: (p) => `${mcBase}&car_type=${enc(p)}`, expect: 'reject' },
  { area: 'marketcheck', parameter: 'state', url: (p) => `${mcBase}&car_type=used&state=${enc(p)}`, expect: 'empty' },
  {
    area: 'marketcheck',
    parameter: 'city_state',
    url: (p) => `${mcBase}&car_type=used&city_state=${enc(p)}`,
    expect: 'empty',
  },
  {
    area: 'marketcheck',
    parameter: 'city_state (city part)',
    url: (p) => `${mcBase}&car_type=used&city_state=${enc(`${p}|CA`)}`,
    expect: 'empty',
  },
  {
    area: 'marketcheck',
    parameter: 'country',
    url: (p) => `${mcBase}&car_type=used&country=${enc(p)}`,
    expect: 'reject',
  },
  {
    area: 'appcenter',
    parameter: 'owner_name',
    url: (p) => `/appcenter/v0.1/apps/${enc(p)}/${enc(access.app)}/releases`,
    headers: acHeaders,
    expect: 'reject',
  },
  {
    area: 'appcenter',
    parameter: 'app_name',
    url: (p) => `/appcenter/v0.1/apps/${enc(access.owner)}/${enc(p)}/releases`,
    headers: acHeaders,
    expect: 'reject',
  },
  {
    area: 'appcenter',
    parameter: 'releaseId',
    url: (p) => `${acBase}?releaseId=${enc(p)}`,
    headers: acHeaders,
    expect: 'reject',
  },
  { area: 'appcenter', parameter: 'top', url: (p) => `${acBase}?top=${enc(p)}`, headers: acHeaders, expect: 'reject' },
  {
    area: 'appcenter',
    parameter: 'published_only',
    url: (p) => `${acBase}?published_only=${enc(p)}`,
    headers: acHeaders,
    expect: 'reject',
  },
  // Anything but "tester" is no scope at all, as on the real gateway.
  {
    area: 'appcenter',
    parameter: 'scope',
    url: (p) => `${acBase}?scope=${enc(p)}`,
    baseline: acBase,
    headers: acHeaders,
    expect: 'unchanged',
  },
  { area: 'appcenter', parameter: 'X-API-Token', url: () => acBase, headers: {}, expect: 'reject' },
  ...[false, true].flatMap((full): Target[] => [
    {
      area: 'agco',
      parameter: `descriptionText (useFullText=${full})`,
      url: (p) => `${agBase}?useFullText=${full}&descriptionText=${enc(p)}`,
      headers: agHeaders,
      expect: full ? 'words' : 'empty',
    },
    {
      area: 'agco',
      parameter: `stringText (useFullText=${full})`,
      url: (p) => `${agBase}?includeTranslations=true&useFullText=${full}&stringText=${enc(p)}`,
      headers: agHeaders,
      expect: full ? 'words' : 'empty',
    },
  ]),
  {
    area: 'agco',
    parameter: 'languageIds',
    url: (p) => `${agBase}?includeTranslations=true&languageIds=${enc(p)}`,
    headers: agHeaders,
    expect: 'reject',
  },
  {
    area: 'agco',
    parameter: 'stringIds',
    url: (p) => `${agBase}?stringIds=${enc(p)}`,
    headers: agHeaders,
    expect: 'empty',
  },
  {
    area: 'agco',
    parameter: 'stringIds (after a real id)',
    url: (p) => `${agBase}?stringIds=${enc(`${cat.agco.stringIds[0]},${p}`)}`,
    baseline: `${agBase}?stringIds=${enc(cat.agco.stringIds[0]!)}`,
    headers: agHeaders,
    expect: 'unchanged',
  },
  {
    area: 'agco',
    parameter: 'modifiedAfterTimestamp',
    url: (p) => `${agBase}?modifiedAfterTimestamp=${enc(p)}`,
    headers: agHeaders,
    expect: 'reject',
  },
  {
    area: 'agco',
    parameter: 'Authorization',
    url: () => agBase,
    headers: { authorization: "Bearer ' OR '1'='1" },
    expect: 'reject',
  },
  { area: 'dkan', parameter: 'datasetId', url: (p) => `/dkan/datastore/query/${enc(p)}/0`, expect: 'reject' },
  { area: 'dkan', parameter: 'index', url: (p) => `/dkan/datastore/query/${dk.datasetId}/${enc(p)}`, expect: 'reject' },
  { area: 'dkan', parameter: 'distributionId', url: (p) => `/dkan/datastore/query/${enc(p)}`, expect: 'reject' },
  {
    area: 'dkan',
    parameter: 'conditions property (bracket)',
    url: (p) => `${dkBase}&conditions[0][property]=${enc(p)}&conditions[0][value]=x`,
    expect: 'reject',
  },
  {
    area: 'dkan',
    parameter: 'conditions property (JSON)',
    url: (p) => `${dkBase}&conditions=${enc(JSON.stringify([{ property: p, value: 'x' }]))}`,
    expect: 'reject',
  },
  {
    area: 'dkan',
    parameter: 'conditions value (match)',
    url: (p) =>
      `${dkBase}&conditions[0][property]=${enc(col)}&conditions[0][operator]=match&conditions[0][value]=${enc(p)}`,
    expect: 'boolean',
  },
  ...(['=', 'like', 'contains', 'starts with'] as const).map(
    (op): Target => ({
      area: 'dkan',
      parameter: `conditions value (${op})`,
      url: (p) =>
        `${dkBase}&conditions[0][property]=${enc(col)}&conditions[0][operator]=${enc(op)}&conditions[0][value]=${enc(p)}`,
      expect: 'empty',
    }),
  ),
  {
    area: 'dkan',
    parameter: 'conditions value (in)',
    url: (p) => `${dkBase}&conditions=${enc(JSON.stringify([{ property: col, operator: 'in', value: [p, p] }]))}`,
    expect: 'empty',
  },
  {
    area: 'dkan',
    parameter: 'conditions operator',
    url: (p) =>
      `${dkBase}&conditions[0][property]=${enc(col)}&conditions[0][operator]=${enc(p)}&conditions[0][value]=x`,
    expect: 'reject',
  },
  {
    area: 'dkan',
    parameter: 'conditions groupOperator',
    url: (p) =>
      `${dkBase}&conditions[0][groupOperator]=${enc(p)}&conditions[0][conditions][0][property]=${enc(col)}&conditions[0][conditions][0][value]=x`,
    expect: 'reject',
  },
  { area: 'dkan', parameter: 'sort', url: (p) => `${dkBase}&sort=${enc(p)}`, expect: 'reject' },
  {
    area: 'dkan',
    parameter: 'sorts property',
    url: (p) => `${dkBase}&sorts[0][property]=${enc(p)}&sorts[0][order]=asc`,
    expect: 'reject',
  },
  {
    area: 'dkan',
    parameter: 'sorts order',
    url: (p) => `${dkBase}&sorts[0][property]=${enc(col)}&sorts[0][order]=${enc(p)}`,
    expect: 'reject',
  },
  { area: 'dkan', parameter: 'properties', url: (p) => `${dkBase}&properties[]=${enc(p)}`, expect: 'reject' },
  {
    area: 'dkan',
    parameter: 'properties (comma list)',
    url: (p) => `${dkBase}&properties=${enc(`${col},${p}`)}`,
    expect: 'reject',
  },
  { area: 'dkan', parameter: 'groupings', url: (p) => `${dkBase}&groupings[]=${enc(p)}`, expect: 'reject' },
];

/** Rows of a success body, whatever the area calls them. */
function rows(area: Area, body: string): unknown[] {
  const b = JSON.parse(body) as unknown;
  if (Array.isArray(b)) return b;
  const o = b as { Entities?: unknown[]; results?: unknown[]; count?: number };
  if (area === 'agco') return o.Entities ?? [];
  if (area === 'dkan') return o.results ?? (o.count ? Array(o.count) : []);
  return [];
}

/** Whether a text fits a MySQL boolean-mode query, read independently of the area's SQL. */
function fitsBoolean(text: string, query: string): boolean {
  const has = (w: string) => text.toLowerCase().includes(w.toLowerCase());
  const terms = (query.match(/[+-]?"[^"]*"|\S+/g) ?? [])
    .map((t) => ({
      sign: /^[+-]/.test(t) ? t[0] : '',
      word: t.replace(/^[+-]/, '').replace(/^"|"$/g, '').replace(/\*$/, ''),
    }))
    .filter((t) => t.word !== '');
  const required = terms.filter((t) => t.sign === '+');
  const optional = terms.filter((t) => t.sign === '');
  return (
    required.every((t) => has(t.word)) &&
    terms.filter((t) => t.sign === '-').every((t) => !has(t.word)) &&
    (required.length > 0 || optional.length === 0 || optional.some((t) => has(t.word)))
  );
}

// Wrong-type payloads (a quote as a number) are rejected for every parameter; the empty ones only for text.
const cases = TARGETS.flatMap((t) =>
  (t.parameter.includes('Token') || t.parameter === 'Authorization' ? [''] : PAYLOADS).map((p) => ({ t, p })),
);

describe(`SQL injection: ${PAYLOADS.length} payloads through ${TARGETS.length} parameters`, () => {
  const canary = `${dkBase}&sort=${enc(col)}`;
  let canaryBody = '';

  it('a normal request answers before the corpus', async () => {
    const res = await app.inject(canary);
    expect(res.statusCode).toBe(200);
    canaryBody = res.body.replace(/"timestamp":"[^"]*"/, '');
  });

  it(`${cases.length} requests: each a 4xx in the area's shape or a correct empty or unchanged answer`, async () => {
    const problems: string[] = [];
    const baselines = new Map<string, string>();
    for (const { t, p } of cases) {
      const url = t.url(p);
      const res = await app.inject({ url, headers: t.headers ?? {} });
      const where = `${t.area} ${t.parameter} ${JSON.stringify(p)} -> ${res.statusCode}`;
      if (res.statusCode >= 400 && res.statusCode < 500) {
        const shape = errorShapeProblem(t.area, res);
        if (shape) problems.push(`${where}: ${shape}`);
        continue;
      }
      if (res.statusCode !== 200 || t.expect === 'reject') {
        problems.push(`${where}: expected a 4xx: ${res.body.slice(0, 160)}`);
        continue;
      }
      if (t.expect === 'empty') {
        const n = rows(t.area, res.body).length;
        if (n > 0) problems.push(`${where}: ${n} rows for a value that matches nothing`);
      } else if (t.expect === 'boolean') {
        const bad = (rows(t.area, res.body) as Record<string, string>[]).filter((r) => !fitsBoolean(String(r[col]), p));
        if (bad.length) problems.push(`${where}: ${bad.length} rows do not fit the query`);
      } else {
        const words = (p.match(/[\p{L}\p{N}_]+/gu) ?? []).join(' ');
        if (t.expect === 'words' && words === '' && rows(t.area, res.body).length === 0) continue;
        const baseline = t.expect === 'words' ? t.url(words) : t.baseline!;
        if (!baselines.has(baseline))
          baselines.set(
            baseline,
            JSON.stringify(rows(t.area, (await app.inject({ url: baseline, headers: t.headers ?? {} })).body)),
          );
        if (JSON.stringify(rows(t.area, res.body)) !== baselines.get(baseline))
          problems.push(`${where}: rows differ from ${baseline}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('the same normal request answers the same afterwards', async () => {
    const res = await app.inject(canary);
    expect(res.body.replace(/"timestamp":"[^"]*"/, '')).toBe(canaryBody);
  });

  it('left the fixture database byte for byte unchanged', () => {
    expect(statSync(dbFile).mtimeMs).toBe(before.mtime);
    expect(sha256()).toBe(before.hash);
    expect(() => store.db.prepare('CREATE TABLE pwn (x)').run()).toThrow(/readonly/);
  });
});
