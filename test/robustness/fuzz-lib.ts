// Requests generated from mockyard's own /openapi.json (plus hostile variants) and the invariants every answer must hold.
import type { FastifyInstance } from 'fastify';
import { Ajv, type ValidateFunction } from 'ajv';
import fc from 'fast-check';
import { contractProblems, hasContract, type ResponseLike } from '../helpers/contract.js';
import type { FixtureStore } from '../../src/platform/data/fixture-store.js';

export type Area = 'archive' | 'marketcheck' | 'appcenter' | 'agco' | 'dkan';
export const AREAS: readonly Area[] = ['archive', 'marketcheck', 'appcenter', 'agco', 'dkan'];

interface Parameter {
  in: 'query' | 'path' | 'header';
  name: string;
  required?: boolean;
  schema?: { type?: string; enum?: unknown[]; anyOf?: { enum?: unknown[] }[]; items?: unknown };
}

export interface Operation {
  area: Area;
  operationId: string;
  /** Path template without the area prefix, as the document writes it: /metadata/{identifier}. */
  path: string;
  parameters: Parameter[];
  /** Responses as mockyard's own document declares them: for operations the real contracts do not have. */
  responses: Record<string, { content?: Record<string, { schema?: object }> }>;
}

export interface FuzzRequest {
  area: Area;
  operationId: string;
  url: string;
  headers: Record<string, string>;
  /** A 5xx asked for: with `Prefer: code=`, or by naming the fixture item documented to answer 503. */
  forced?: number;
}

const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
const servedValidators = new WeakMap<object, ValidateFunction>();

/** Problems of a success against mockyard's own document, for operations that are mockyard's additions. */
function servedProblems(op: Operation, res: ResponseLike): string[] {
  const status = String(res.statusCode);
  const response = op.responses[status] ?? op.responses[`${status[0]}XX`] ?? op.responses.default;
  if (!response) return [`status ${status} is not documented for ${op.operationId}`];
  const schema = response.content?.['application/json']?.schema;
  const type = String(res.headers['content-type'] ?? '');
  if (!schema || !type.startsWith('application/json') || (schema as { format?: string }).format === 'binary') return [];
  let validate = servedValidators.get(schema);
  if (!validate) servedValidators.set(schema, (validate = ajv.compile(schema)));
  let body: unknown;
  try {
    body = JSON.parse(res.body ?? '');
  } catch {
    return ['body is not JSON'];
  }
  return validate(body) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '(body)'} ${e.message ?? ''}`);
}

export type Invariant = 'no-5xx' | 'no-crash-or-hang' | 'error-shape' | 'contract';

export interface Failure {
  invariant: Invariant;
  request: FuzzRequest;
  status: number | null;
  detail: string;
}

/** The area operations of the served OpenAPI document. */
export async function loadOperations(app: FastifyInstance): Promise<Operation[]> {
  const doc = (await app.inject('/openapi.json')).json() as {
    paths: Record<string, Record<string, unknown> & { servers?: { url: string }[] }>;
  };
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    const area = item.servers?.[0]?.url.slice(1) as Area | undefined;
    if (!area || !AREAS.includes(area)) continue;
    const get = item.get as
      | { operationId: string; parameters?: Parameter[]; responses?: Operation['responses'] }
      | undefined;
    if (get)
      ops.push({
        area,
        operationId: get.operationId,
        path,
        parameters: get.parameters ?? [],
        responses: get.responses ?? {},
      });
  }
  return ops;
}

/** Valid identifiers, keys and tokens from the fixture catalog, so generated requests reach past 404 and 401. */
export interface Catalog {
  archive: { identifier: string; node: number; files: string[]; status: string }[];
  marketcheck: { apiKeys: string[]; states: string[]; cities: string[] };
  appcenter: {
    tokens: string[];
    apps: { owner: string; app: string }[];
    access: { token: string; owner: string; app: string }[];
  };
  agco: { tokens: string[]; languages: number[]; stringIds: string[] };
  dkan: { datasetId: string; index: number; distributionId: string; columns: string[] }[];
}

export async function loadCatalog(app: FastifyInstance, store: FixtureStore): Promise<Catalog> {
  const c = (await app.inject('/__mockyard/fixtures')).json() as {
    archive: { items: { identifier: string; files: string[]; status: string }[] };
    marketcheck: { apiKeys: string[]; states: { us: string[]; ca: string[] }; cities: string[] };
    appcenter: { tokens: { token: string; groups: string[] }[]; apps: { owner: string; app: string }[] };
    agco: { tokens: string[]; languages: { id: number }[]; stringIds: string[] };
    dkan: {
      datasets: { id: string; resources: { index: number; distributionId: string; columns: { name: string }[] }[] }[];
    };
  };
  const nodes = new Map(
    (
      store.db.prepare('SELECT identifier, node FROM archive_items').all() as { identifier: string; node: number }[]
    ).map((r) => [r.identifier, r.node]),
  );
  return {
    archive: c.archive.items.map((i) => ({
      identifier: i.identifier,
      node: nodes.get(i.identifier) ?? 1,
      files: i.files,
      status: i.status,
    })),
    marketcheck: {
      apiKeys: c.marketcheck.apiKeys,
      states: [...c.marketcheck.states.us, ...c.marketcheck.states.ca],
      cities: c.marketcheck.cities.slice(0, 50),
    },
    appcenter: {
      tokens: c.appcenter.tokens.map((t) => t.token),
      apps: c.appcenter.apps,
      // A group "owner/app/Name" gives its members that app's releases.
      access: c.appcenter.tokens.flatMap((t) =>
        t.groups.map((g) => g.split('/')).map(([owner, app]) => ({ token: t.token, owner: owner!, app: app! })),
      ),
    },
    agco: { tokens: c.agco.tokens, languages: c.agco.languages.map((l) => l.id), stringIds: c.agco.stringIds },
    dkan: c.dkan.datasets.flatMap((d) =>
      d.resources.map((r) => ({
        datasetId: d.id,
        index: r.index,
        distributionId: r.distributionId,
        columns: r.columns.map((col) => col.name),
      })),
    ),
  };
}

// ---- values -------------------------------------------------------------------------------------

/** Percent-encodes the UTF-8 bytes of a string (lone surrogates become U+FFFD instead of throwing). */
export function enc(s: string): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(b);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

const HOSTILE_STRINGS = [
  '',
  ' ',
  '0',
  '-1',
  '1e309',
  'NaN',
  'null',
  'undefined',
  'true',
  '[]',
  '{}',
  '[object Object]',
  '__proto__',
  'constructor',
  'hasOwnProperty',
  'valueOf',
  'toString',
  "'",
  '"',
  "' OR '1'='1",
  '1; DROP TABLE x; --',
  '%',
  '%%',
  '\\',
  '../..',
  '\u0000',
  '\r\n',
  '\t',
  '\u001b[31m',
  '\u202e',
  '\uFEFF',
  '\uD800',
  '\uFFFF',
  '𝕏😀',
  'ß',
  'İ',
  'ǅ',
  '日本語',
  'a'.repeat(300),
  ',',
  ',,,',
  '|',
  '*',
  '?',
  '#',
  '&',
  '=',
  '+',
] as const;

/** Bytes that are not valid UTF-8 or not valid percent-encoding, written raw into the URL. */
export const BAD_ENCODINGS = [
  '%',
  '%G1',
  '%E0%A4%A',
  '%C0%AF',
  '%FF%FE',
  '%ED%A0%80',
  '%F8%88%80%80%80',
  '%C0%80',
  '%%32%65',
  '%u002e',
  '%00',
] as const;

const anyText = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 24 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 6000 }).map((n) => 'x'.repeat(n)) },
);

const numberText = fc.oneof(
  fc.integer().map(String),
  fc.double({ noNaN: false }).map(String),
  fc.constantFrom('0', '1', '-0', '1.5', '0x10', ' 7 ', '9007199254740993', '1e3', '+3', '٣'),
);

/** One query value: mostly encoded text, sometimes a raw broken escape, sometimes double-encoded. */
/** `valid` alone for a well-formed request; with the hostile alternatives mixed in otherwise. */
function mix<T>(h: boolean, valid: fc.Arbitrary<T>, ...hostile: fc.WeightedArbitrary<T>[]): fc.Arbitrary<T> {
  return h ? fc.oneof({ weight: 5, arbitrary: valid }, ...hostile) : valid;
}
const w = <T>(weight: number, arbitrary: fc.Arbitrary<T>): fc.WeightedArbitrary<T> => ({ weight, arbitrary });

const encodedValue = (value: fc.Arbitrary<string>, h: boolean): fc.Arbitrary<string> =>
  !h
    ? value.map(enc)
    : fc.oneof(
        { weight: 8, arbitrary: value.map(enc) },
        {
          weight: 1,
          arbitrary: fc.tuple(value, fc.constantFrom(...BAD_ENCODINGS)).map(([v, bad]) => `${enc(v)}${bad}`),
        },
        { weight: 1, arbitrary: value.map((v) => enc(enc(v))) },
      );

function enumOf(p: Parameter): unknown[] | undefined {
  return p.schema?.enum ?? p.schema?.anyOf?.flatMap((a) => a.enum ?? []);
}

/** A value of the parameter's declared type, or a wrong one. */
function schemaValue(p: Parameter, valid: string[] | undefined, h: boolean): fc.Arbitrary<string> {
  const typed = (() => {
    if (valid && valid.length > 0) return fc.constantFrom(...valid);
    const e = enumOf(p);
    if (e && e.length > 0) return fc.constantFrom(...e.map(String));
    switch (p.schema?.type) {
      case 'boolean':
        return h ? fc.constantFrom('true', 'false', '1', '0') : fc.constantFrom('true', 'false');
      case 'integer':
      case 'number':
        return h
          ? fc.oneof(fc.integer({ min: 0, max: 50 }).map(String), numberText)
          : fc.integer({ min: 1, max: 50 }).map(String);
      default:
        return fc.string({ maxLength: 8 });
    }
  })();
  return mix(h, typed, w(2, anyText), w(1, numberText));
}

/** name=value pairs for one query parameter: absent, once, repeated, or in bracket form. */
function queryParam(name: string, value: fc.Arbitrary<string>, h: boolean, presence = 0.5): fc.Arbitrary<string[]> {
  const v = encodedValue(value, h);
  if (!h)
    return fc.oneof(
      { weight: Math.round((1 - presence) * 10), arbitrary: fc.constant<string[]>([]) },
      { weight: Math.round(presence * 10), arbitrary: v.map((x) => [`${name}=${x}`]) },
    );
  return fc.oneof(
    { weight: Math.round((1 - presence) * 10), arbitrary: fc.constant<string[]>([]) },
    { weight: Math.round(presence * 7), arbitrary: v.map((x) => [`${name}=${x}`]) },
    { weight: 1, arbitrary: fc.array(v, { minLength: 2, maxLength: 4 }).map((xs) => xs.map((x) => `${name}=${x}`)) },
    {
      weight: 1,
      arbitrary: fc.array(v, { minLength: 1, maxLength: 3 }).map((xs) => xs.map((x, i) => `${name}[${i}]=${x}`)),
    },
    { weight: 1, arbitrary: fc.constantFrom(`${name}`, `${name}=`, `${name}[]=`, `${name}[x][y]=1`).map((x) => [x]) },
  );
}

// ---- per-area valid values ---------------------------------------------------------------------

function dkanConditions(columns: string[], h: boolean): fc.Arbitrary<string> {
  if (!h) {
    const simple = fc.oneof(
      fc.record({
        property: fc.constantFrom(...columns),
        value: fc.string({ maxLength: 6 }),
        operator: fc.constantFrom('=', '<>', 'like', 'contains', 'starts with'),
      }),
      fc.record({
        property: fc.constantFrom(...columns),
        value: fc.array(fc.string({ maxLength: 6 }), { minLength: 1, maxLength: 3 }),
        operator: fc.constantFrom('in', 'not in'),
      }),
      fc.record({ property: fc.constantFrom(...columns), operator: fc.constantFrom('is_empty', 'not_empty') }),
    );
    return fc.array(simple, { minLength: 1, maxLength: 3 }).map((c) => JSON.stringify(c));
  }
  const property = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...columns, 'record_number') },
    { weight: 1, arbitrary: anyText },
  );
  const operator = fc.constantFrom(
    '=',
    '<>',
    '<',
    '<=',
    '>',
    '>=',
    'like',
    'between',
    'in',
    'not in',
    'contains',
    'starts with',
    'match',
    'is_empty',
    'not_empty',
    'LIKE',
    'nope',
    '',
  );
  const scalar = fc.oneof(anyText, fc.integer(), fc.double(), fc.boolean(), fc.constant(null));
  const value = fc.oneof(
    scalar,
    fc.array(scalar, { maxLength: 4 }),
    fc.record({ property: fc.constantFrom(...columns) }),
  );
  const condition = fc.record({ property, value, operator }, { requiredKeys: ['property'] });
  const tree = fc.letrec<{ node: unknown }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      condition,
      fc.record({
        groupOperator: fc.constantFrom('and', 'or', 'xor', 'AND'),
        conditions: fc.array(tie('node'), { maxLength: 3 }),
      }),
    ),
  })).node;
  return fc.oneof(
    { weight: 4, arbitrary: fc.array(tree, { maxLength: 4 }).map((c) => JSON.stringify(c)) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 200 }).map((n) => '['.repeat(n) + ']'.repeat(n)) },
    { weight: 1, arbitrary: fc.integer({ min: 4, max: 60 }).map((n) => deepGroup(n, columns[0]!)) },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 90, max: 130 })
        .map((n) => JSON.stringify(Array.from({ length: n }, () => ({ property: columns[0], value: 'x' })))),
    },
    { weight: 1, arbitrary: anyText },
  );
}

/** A condition group nested `depth` levels deep (documented bound: 5). */
export function deepGroup(depth: number, property: string): string {
  let node: unknown = { property, value: 'x', operator: '=' };
  for (let i = 0; i < depth; i++) node = { groupOperator: 'and', conditions: [node] };
  return JSON.stringify([node]);
}

/** The same tree in PHP bracket form: conditions[0][conditions][0]...[property]=... */
export function deepBracket(depth: number, property: string): string {
  const groups = Array.from(
    { length: depth },
    (_, i) => `conditions[0]${'[conditions][0]'.repeat(i)}[groupOperator]=and`,
  );
  const prefix = `conditions[0]${'[conditions][0]'.repeat(depth)}`;
  return [...groups, `${prefix}[property]=${property}&${prefix}[value]=x`].join('&');
}

const RANGES = [
  'bytes=0-0',
  'bytes=0-',
  'bytes=-1',
  'bytes=5-2',
  'bytes=0-99999999999',
  'bytes=99999999-',
  'bytes=-0',
  'bytes=0-1,2-3,4-5',
  'bytes=a-b',
  'bytes=',
  'bytes',
  'items=0-1',
  'bytes=0-1, 1-2',
  'bytes=-',
  'bytes=1-1,1-1,1-1,1-1,1-1,1-1,1-1,1-1,1-1,1-1,1-1,1-1',
  `bytes=${'0-1,'.repeat(300)}0-1`,
  'bytes=18446744073709551616-',
  'bytes= 0-1',
  'BYTES=0-1',
];

const authHeader = (tokens: string[]) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...tokens).map((t) => `Bearer ${t}`) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '',
        'Bearer',
        'Bearer ',
        'bearer x',
        'Basic Zm9vOmJhcg==',
        'Bearer a b c',
        `Bearer ${'t'.repeat(4000)}`,
        'Bearer \u00e9',
        'Token x',
        'Bearer\tx',
      ),
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 20 }).map((s) => `Bearer ${s}`) },
  );

/** Header values a client can actually send (no CR/LF/NUL), otherwise arbitrary. */
const headerSafe = (s: string) =>
  s.replace(/[\u0000-\u0008\u000a-\u001f\u007f]/g, '').replace(/[^\u0000-\u00ff]/g, '?');

interface Parts {
  path: string;
  query: string[];
  headers: Record<string, string>;
}

function pathSegment(valid: fc.Arbitrary<string>, h: boolean): fc.Arbitrary<string> {
  if (!h) return valid.map(enc);
  return fc.oneof(
    { weight: 12, arbitrary: valid.map(enc) },
    { weight: 2, arbitrary: anyText.filter((s) => s !== '').map(enc) },
    { weight: 1, arbitrary: fc.tuple(valid, fc.constantFrom(...BAD_ENCODINGS)).map(([v, bad]) => `${enc(v)}${bad}`) },
  );
}

/**
 * Operations without a hand-written generator (the workflow operations around the five): path parameters
 * from arbitrary text, query parameters from their schema, auth headers left to chance. The invariants (no
 * 5xx, no crash, the area's error shape, the contract) still hold for every answer.
 */
function genericParts(
  op: Operation,
  h: boolean,
  q: (name: string, valid?: string[], presence?: number) => fc.Arbitrary<string[]>,
): fc.Arbitrary<Parts> {
  const names = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] ?? '');
  const segments = names.map(() => pathSegment(fc.constantFrom('1', 'latest', 'x', 'Collaborators'), h));
  const query = op.parameters.filter((p) => p.in === 'query').map((p) => q(p.name));
  return fc.record({
    path: fc.tuple(...segments).map((values) => {
      let i = 0;
      return op.path.replace(/\{[^}]+\}/g, () => values[i++] ?? 'x');
    }),
    query: fc.tuple(...query).map((xs) => xs.flat()),
    headers: fc.constant({}),
  });
}

function areaParts(op: Operation, cat: Catalog, h: boolean): fc.Arbitrary<Parts> {
  const q = (name: string, valid?: string[], presence?: number) => {
    const p = op.parameters.find((x) => x.name === name) ?? { in: 'query' as const, name };
    return queryParam(name, schemaValue(p, valid, h), h, presence);
  };
  const qp = (name: string, value: fc.Arbitrary<string>, presence?: number) => queryParam(name, value, h, presence);
  const seg = (valid: fc.Arbitrary<string>) => pathSegment(valid, h);
  const text = (valid: fc.Arbitrary<string>, weight = 2) => mix(h, valid, w(weight, anyText));
  const joinQuery = (...parts: fc.Arbitrary<string[]>[]) => fc.tuple(...parts).map((xs) => xs.flat());
  switch (op.operationId) {
    case 'getItemMetadata':
      return fc.record({
        path: seg(fc.constantFrom(...cat.archive.map((i) => i.identifier))).map((id) => `/metadata/${id}`),
        query: fc.constant<string[]>([]),
        headers: fc.constant({}),
      });
    case 'getItemMetadataPath': {
      const sub = mix(
        h,
        fc.constantFrom(
          'metadata',
          'files',
          'files/0',
          'files/999',
          'metadata/title',
          'server',
          'dir',
          'd1',
          'files_count',
          'reviews',
          'is_dark',
          'metadata/x/y/z',
        ),
        w(3, anyText.map(enc)),
      );
      return fc.record({
        path: fc
          .tuple(seg(fc.constantFrom(...cat.archive.map((i) => i.identifier))), sub)
          .map(([id, s]) => `/metadata/${id}/${s}`),
        query: joinQuery(q('start'), q('count')),
        headers: fc.constant({}),
      });
    }
    case 'downloadItemFile':
    case 'downloadItemFileFromDataNode': {
      const file = fc.constantFrom(...cat.archive).chain((item) =>
        fc.record({
          id: seg(fc.constant(item.identifier)),
          name: mix(
            h,
            fc.constantFrom(...item.files).map((f) => f.split('/').map(enc).join('/')),
            w(2, pathSegment(anyText, true)),
          ),
          node: mix(h, fc.constant(String(item.node)), w(1, anyText.map(enc))),
        }),
      );
      return fc.record({
        path: file.map(({ id, name, node }) =>
          op.operationId === 'downloadItemFile' ? `/download/${id}/${name}` : `/${node}/items/${id}/${name}`,
        ),
        query: q('cnt', ['0', '1'], 0.2),
        headers: !h
          ? fc.constant({})
          : fc.oneof(
              fc.constant({}),
              fc.constantFrom(...RANGES).map((range) => ({ range })),
              fc.constantFrom(...RANGES).map((range) => ({ range, 'if-range': 'Wed, 21 Oct 2015 07:28:00 GMT' })),
            ),
      });
    }
    case 'getPopularCars': {
      const key = text(fc.constantFrom(...cat.marketcheck.apiKeys), 1);
      return fc.record({
        path: fc.constant('/popular/cars'),
        query: joinQuery(
          qp('api_key', key, 0.9),
          q('car_type', undefined, 0.9),
          q('country'),
          q('state', cat.marketcheck.states, 0.3),
          q('city_state', cat.marketcheck.cities, 0.3),
        ),
        headers: fc.constant({}),
      });
    }
    case 'releases_list': {
      const app = fc.constantFrom(...cat.appcenter.apps);
      const token = mix(h, fc.constantFrom(...cat.appcenter.tokens), w(2, anyText.map(headerSafe)));
      if (!h) {
        return fc
          .record({
            access: fc.constantFrom(...cat.appcenter.access),
            query: joinQuery(q('published_only'), q('top'), q('releaseId', ['1', '2', '3'], 0.2)),
          })
          .map(({ access, query }) => ({
            path: `/v0.1/apps/${enc(access.owner)}/${enc(access.app)}/releases`,
            query,
            headers: { 'x-api-token': access.token },
          }));
      }
      return fc.record({
        path: fc
          .tuple(app, pathSegment(anyText, true), fc.boolean())
          .map(([a, bad, odd]) => `/v0.1/apps/${h && odd && bad ? bad : enc(a.owner)}/${enc(a.app)}/releases`),
        query: joinQuery(q('published_only'), q('scope', ['tester']), q('top'), q('releaseId', ['1', '2', '3'])),
        headers: fc
          .option(token, { nil: undefined, freq: h ? 6 : 20 })
          .map((t): Record<string, string> => (t === undefined ? {} : { 'x-api-token': t })),
      });
    }
    case 'StringDefinitions_GetDefinitions': {
      const ids = mix(
        h,
        fc.subarray(cat.agco.stringIds, { minLength: 1, maxLength: 8 }).map((xs) => xs.join(',')),
        w(
          2,
          fc
            .integer({ min: 38, max: 60 })
            .map((n) =>
              Array.from({ length: n }, (_, i) => cat.agco.stringIds[i % cat.agco.stringIds.length]).join(','),
            ),
        ),
        w(2, anyText),
      );
      const langs = text(
        fc.subarray(cat.agco.languages.map(String), { minLength: 1, maxLength: 4 }).map((xs) => xs.join(',')),
      );
      return fc.record({
        path: fc.constant('/api/v2/StringDefinitions'),
        query: joinQuery(
          qp('stringIds', ids, 0.3),
          qp('languageIds', langs, h ? 0.3 : 0),
          q('limit'),
          q('modifiedAfterTimestamp', ['AAAAAAAAAAA=', 'AAAAAAAAB9E=', 'AAAAAAAAJxA='], 0.3),
          q('includeTranslations'),
          q('stringText', ['a', 'Tractor'], 0.3),
          q('descriptionText', ['the'], 0.3),
          q('useFullText'),
          q('includeDeletedLanguages'),
          q('matchingTranslationsOnly'),
        ),
        headers: fc.record(
          {
            authorization: h
              ? authHeader(cat.agco.tokens)
              : fc.constantFrom(...cat.agco.tokens).map((t) => `Bearer ${t}`),
            accept: fc.constantFrom(
              'application/json',
              'application/xml',
              'text/json',
              'text/xml',
              '*/*',
              'text/html',
              'application/xml;q=0.1, application/json;q=0.9',
              ';;;',
              'application/*',
              'constructor',
              '__proto__',
              'text/*;q=x',
            ),
          },
          { requiredKeys: ['authorization'] },
        ),
      });
    }
    case 'datastore-query-schema-get':
      return fc.record({ path: fc.constant('/datastore/query/schema'), query: q('limit'), headers: fc.constant({}) });
    case 'datastore-datasetindex-query-get':
    case 'datastore-resource-query-get':
    case 'datastore-query-get':
    case 'datastore-query-download-get':
    case 'datastore-resource-query-download-get':
    case 'datastore-datasetindex-query-download-get': {
      const download = op.operationId.includes('download') ? '/download' : '';
      return fc.constantFrom(...cat.dkan).chain((res) => {
        const path = op.operationId.startsWith('datastore-query')
          ? fc.constant(`/datastore/query${download}`)
          : op.operationId.startsWith('datastore-resource')
            ? seg(fc.constant(res.distributionId)).map((d) => `/datastore/query/${d}${download}`)
            : fc
                .tuple(
                  seg(fc.constant(res.datasetId)),
                  h
                    ? pathSegment(fc.constantFrom(String(res.index), '1', '-1', '99', '0x0'), true)
                    : fc.constant(String(res.index)),
                )
                .map(([d, i]) => `/datastore/query/${d}/${i}${download}`);
        const resources = op.operationId.startsWith('datastore-query')
          ? fc.constant<string[]>([`resources[0][id]=${enc(res.distributionId)}`, 'resources[0][alias]=t'])
          : fc.constant<string[]>([]);
        const cols = fc.constantFrom(...res.columns);
        const sortText = fc
          .array(fc.tuple(cols, fc.constantFrom('', ' asc', ' desc', ' DESC', ' sideways')), {
            minLength: 1,
            maxLength: 3,
          })
          .map((xs) => xs.map(([c, o]) => c + o).join(','));
        const bracket = fc.oneof(
          fc
            .tuple(cols, anyText, fc.constantFrom('=', 'like', 'in', 'between', '<', 'bogus'))
            .map(([c, v, o]) => [
              `conditions[0][property]=${enc(c)}`,
              `conditions[0][value]=${enc(v)}`,
              `conditions[0][operator]=${enc(o)}`,
            ]),
          fc
            .tuple(cols, anyText)
            .map(([c, v]) => [
              `conditions[0][property]=${enc(c)}`,
              `conditions[0][value][0]=${enc(v)}`,
              `conditions[0][value][1]=${enc(v)}`,
              'conditions[0][operator]=between',
            ]),
          fc.integer({ min: 3, max: 12 }).map((d) => deepBracket(d, res.columns[0]!).split('&')),
          fc.constant<string[]>(['conditions[99999999]=1']),
          fc.constant<string[]>(['conditions[][][][][][][][][][][]=1']),
        );
        return fc.record({
          path,
          query: joinQuery(
            resources,
            fc.oneof(
              { weight: 2, arbitrary: fc.constant<string[]>([]) },
              { weight: 2, arbitrary: qp('conditions', dkanConditions(res.columns, h), 1) },
              { weight: h ? 1 : 0, arbitrary: bracket },
            ),
            qp('sort', text(sortText), 0.2),
            fc.oneof(
              fc.constant<string[]>([]),
              fc
                .tuple(cols, h ? fc.constantFrom('asc', 'desc', 'up') : fc.constantFrom('asc', 'desc'))
                .map(([c, o]) => [`sorts[0][property]=${enc(c)}`, `sorts[0][order]=${o}`]),
            ),
            qp('properties', text(cols), 0.2),
            q('limit', h ? ['1', '5', '10000', '10001', '0'] : ['1', '5', '20'], 0.5),
            q('offset', h ? ['0', '3', '99999999'] : ['0', '3', '99999'], 0.3),
            q('count'),
            q('results', undefined, 0.2),
            q('schema', undefined, 0.2),
            q('keys', undefined, 0.2),
            q('format', ['json', 'csv'], download ? 0.9 : 0.3),
            q('rowIds', h ? undefined : ['false'], 0.2),
            qp('groupings', cols, h ? 0.1 : 0),
          ),
          headers: fc.constant({}),
        });
      });
    }
    default:
      return genericParts(op, h, q);
  }
}

/** Statuses worth asking for with Prefer: documented ones, a 5xx, and some nonsense. */
const preferCode = (op: Operation, documented: Record<string, readonly number[]>) =>
  fc.constantFrom(...(documented[op.operationId] ?? []), 503, 500, 418, 200);

/** A request for one operation: its parameters valid, wrong, hostile or repeated, plus unknown parameters and odd headers. */
export function requestArbitrary(
  ops: Operation[],
  cat: Catalog,
  documented: Record<string, readonly number[]>,
): fc.Arbitrary<FuzzRequest> {
  const unavailable = cat.archive.filter((i) => i.status === 'unavailable').map((i) => `/${i.identifier}/`);
  // Each area gets the same share, whatever its number of operations.
  const byArea = AREAS.map((a) => ops.filter((o) => o.area === a)).filter((list) => list.length > 0);
  // Two in five requests are well-formed, so the fuzzer also reaches the success paths.
  return fc
    .tuple(
      fc.constantFrom(...byArea).chain((list) => fc.constantFrom(...list)),
      fc.constantFrom(true, true, true, false, false),
    )
    .chain(([op, h]) =>
      fc
        .record({
          parts: areaParts(op, cat, h),
          extra: fc.array(
            fc.tuple(anyText, anyText).map(([k, v]) => `${enc(k) || 'k'}=${enc(v)}`),
            { maxLength: h ? 2 : 1 },
          ),
          forced: fc.oneof(
            { weight: h ? 7 : 20, arbitrary: fc.constant(undefined) },
            { weight: 1, arbitrary: preferCode(op, documented) },
          ),
          trailing: h ? fc.constantFrom('', '', '', '', '/', '//', '?', '&', '#frag') : fc.constant(''),
          shuffle: fc.boolean(),
        })
        .map(({ parts, extra, forced, trailing, shuffle }) => {
          const query = [...parts.query, ...extra];
          if (shuffle) query.reverse();
          const qs = query.length ? `?${query.join('&')}` : '';
          const headers = { ...parts.headers };
          if (forced !== undefined) headers.prefer = `code=${forced}`;
          const url =
            trailing === '/' || trailing === '//'
              ? `/${op.area}${parts.path}${trailing}${qs}`
              : `/${op.area}${parts.path}${qs}${trailing}`;
          // The unavailable item's files answer IA's maintenance page (503) by design.
          const asked =
            forced !== undefined && forced >= 300
              ? forced
              : op.operationId.startsWith('download') && unavailable.some((u) => url.includes(u))
                ? 503
                : undefined;
          return {
            area: op.area,
            operationId: op.operationId,
            url,
            headers,
            ...(asked !== undefined ? { forced: asked } : {}),
          };
        }),
    );
}

// ---- invariants --------------------------------------------------------------------------------

const typeOf = (res: ResponseLike) =>
  String(res.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase();

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Why this error response is not in the area's own documented shape, or undefined when it is. */
export function errorShapeProblem(area: Area, res: ResponseLike, accept?: string, path = ''): string | undefined {
  const text = res.body ?? res.payload ?? '';
  const type = typeOf(res);
  const status = res.statusCode;
  switch (area) {
    case 'archive':
      // archive.org's search APIs answer JSON: the scrape API {error, errorType}, advancedsearch Solr's {error: {msg}}.
      // Outages and unknown paths get archive.org's HTML pages there too.
      if (/\/(services\/search\/|advancedsearch\.php)/.test(path) && type !== 'text/html') {
        if (type !== 'application/json') return `content type ${type}, expected application/json`;
        const b = parseJson(text);
        return b && b.error !== undefined ? undefined : `not a search error: ${text.slice(0, 120)}`;
      }
      if (type !== 'text/html') return `content type ${type}, expected text/html`;
      return /<title>[^<]+<\/title>/.test(text) ? undefined : `not an archive.org error page: ${text.slice(0, 120)}`;
    case 'marketcheck': {
      if (type !== 'application/json') return `content type ${type}`;
      const b = parseJson(text);
      if (!b || typeof b.message !== 'string') return `not {code, message}: ${text.slice(0, 120)}`;
      // The rate-limiting gateway's 429 carries only a message.
      if (status !== 429 && b.code !== status) return `code ${String(b.code)} != status ${status}`;
      return undefined;
    }
    case 'appcenter': {
      if (type !== 'application/json') return `content type ${type}`;
      const b = parseJson(text);
      if (!b || typeof b.message !== 'string' || b.statusCode !== status || typeof b.code !== 'string')
        return `not {message, statusCode, code}: ${text.slice(0, 120)}`;
      if (!/[^.]\. Correlation ID: [0-9a-f-]{36}$/.test(b.message))
        return `message does not end in one ". Correlation ID: <uuid>": ${b.message}`;
      return undefined;
    }
    case 'agco': {
      if (type.endsWith('/xml')) {
        if (!/xml/.test(accept ?? '')) return `XML error without asking for XML (accept ${accept})`;
        return /<ErrorCode>\d+<\/ErrorCode>/.test(text) && /<UserMessage>/.test(text)
          ? undefined
          : `not an ApiError XML: ${text.slice(0, 160)}`;
      }
      if (type !== 'application/json' && type !== 'text/json') return `content type ${type}`;
      const b = parseJson(text);
      if (
        !b ||
        Object.keys(b).sort().join() !== 'DeveloperMessage,ErrorCode,MoreInfo,UserMessage' ||
        b.ErrorCode !== status
      )
        return `not an ApiError: ${text.slice(0, 160)}`;
      return undefined;
    }
    case 'dkan': {
      if (type !== 'application/json') return `content type ${type}`;
      const b = parseJson(text);
      if (!b || typeof b.message !== 'string') return `not {message, ...}: ${text.slice(0, 120)}`;
      if (b.status !== undefined && b.status !== status) return `status ${String(b.status)} != ${status}`;
      return undefined;
    }
  }
}

/** Downloads keep the file's own content type and bytes; only the status is checked against the contract. */
const RAW_BODY_OPERATIONS = new Set(['downloadItemFile', 'downloadItemFileFromDataNode']);

export interface Outcome {
  status: number | null;
  failures: Failure[];
}

export interface Sender {
  send(req: FuzzRequest): Promise<ResponseLike>;
  /** operationId of the route that answered the last request (from the journal). */
  lastOperation(): Promise<string | null>;
}

/** The journal says which route answered, so a 2xx is checked against the operation that produced it. */
export function injectSender(app: FastifyInstance): Sender {
  return {
    send: async (req) => {
      const res = await app.inject({ method: 'GET', url: req.url, headers: req.headers });
      return { statusCode: res.statusCode, headers: res.headers, body: res.body };
    },
    lastOperation: async () => {
      const res = await app.inject('/__mockyard/requests?limit=1');
      const j = res.json() as { requests?: { operationId: string | null }[] };
      if (!j.requests) throw new Error(`journal answered ${res.statusCode}: ${res.body.slice(0, 200)}`);
      return j.requests[0]?.operationId ?? null;
    },
  };
}

/** mockyard's own answer to a `Prefer` it cannot honour (README, Test controls): documented, not the area's shape. */
function isPreferRejection(req: FuzzRequest, res: ResponseLike): boolean {
  if (req.headers.prefer === undefined || res.statusCode !== 400 || !res.headers['mockyard-error']) return false;
  const b = parseJson(res.body ?? '');
  return (
    b !== undefined && b.statusCode === 400 && typeof b.message === 'string' && String(b.message).startsWith('Prefer: ')
  );
}

export async function check(
  sender: Sender,
  req: FuzzRequest,
  timeoutMs: number,
  ops: ReadonlyMap<string, Operation>,
): Promise<Outcome> {
  const fail = (invariant: Invariant, status: number | null, detail: string): Outcome => ({
    status,
    failures: [{ invariant, request: req, status, detail }],
  });
  let timer: NodeJS.Timeout | undefined;
  let res: ResponseLike;
  try {
    res = await Promise.race([
      sender.send(req),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
  } catch (err) {
    return fail('no-crash-or-hang', null, (err as Error).message);
  } finally {
    clearTimeout(timer);
  }
  const status = res.statusCode;
  const failures: Failure[] = [];
  if (status >= 500 && req.forced !== status)
    failures.push({ invariant: 'no-5xx', request: req, status, detail: (res.body ?? '').slice(0, 300) });
  // Forced 5xx too: a client under test parses them like the natural ones.
  if (status >= 400) {
    const problem = isPreferRejection(req, res)
      ? undefined
      : errorShapeProblem(req.area, res, req.headers.accept, req.url);
    if (problem) failures.push({ invariant: 'error-shape', request: req, status, detail: problem });
  }
  if (status >= 200 && status < 300) {
    const operationId = (await sender.lastOperation()) ?? req.operationId;
    const op = ops.get(operationId);
    const problems = !hasContract(operationId)
      ? op
        ? servedProblems(op, res)
        : [`unknown operation ${operationId}`]
      : RAW_BODY_OPERATIONS.has(operationId)
        ? contractProblems(operationId, { ...res, headers: {} }).filter((p) => p.startsWith('status'))
        : contractProblems(operationId, res);
    if (problems.length)
      failures.push({
        invariant: 'contract',
        request: req,
        status,
        detail: `${operationId}: ${problems.slice(0, 3).join('; ')}`,
      });
  }
  return { status, failures };
}

export interface Summary {
  perArea: Record<Area, number>;
  /** Successes per area: how far past validation the generated requests got. */
  okPerArea: Record<Area, number>;
  statuses: Record<string, number>;
  failures: Failure[];
}

export function emptySummary(): Summary {
  const zero = () => ({ archive: 0, marketcheck: 0, appcenter: 0, agco: 0, dkan: 0 });
  return { perArea: zero(), okPerArea: zero(), statuses: {}, failures: [] };
}

export function record(summary: Summary, req: FuzzRequest, outcome: Outcome): void {
  summary.perArea[req.area]++;
  if (outcome.status !== null && outcome.status < 300) summary.okPerArea[req.area]++;
  const key = outcome.status === null ? 'none' : `${String(outcome.status)[0]}xx`;
  summary.statuses[key] = (summary.statuses[key] ?? 0) + 1;
  summary.failures.push(...outcome.failures);
}

export function formatSummary(title: string, summary: Summary): string {
  const total = Object.values(summary.perArea).reduce((a, b) => a + b, 0);
  const byInvariant: Record<string, number> = { 'no-5xx': 0, 'no-crash-or-hang': 0, 'error-shape': 0, contract: 0 };
  for (const f of summary.failures) byInvariant[f.invariant]!++;
  const lines = [
    `${title}: ${total} requests`,
    `  per area:   ${AREAS.map((a) => `${a} ${summary.perArea[a]} (${summary.okPerArea[a]} ok)`).join(', ')}`,
    `  statuses:   ${Object.entries(summary.statuses)
      .sort()
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
    `  failures:   ${Object.entries(byInvariant)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  ];
  const shown = new Map<Invariant, number>();
  for (const f of summary.failures) {
    const n = shown.get(f.invariant) ?? 0;
    shown.set(f.invariant, n + 1);
    if (n >= 4) continue;
    lines.push(
      `    [${f.invariant}] ${f.status ?? '-'} GET ${f.request.url.slice(0, 200)} ${JSON.stringify(f.request.headers).slice(0, 200)}: ${f.detail}`,
    );
  }
  return lines.join('\n');
}
