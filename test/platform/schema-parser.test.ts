// The validation policy (src/platform/area.ts) says parsers are the truth and route schemas document them.
// This holds them to each other: every typed query parameter of every area operation in /openapi.json is
// sent with values its schema allows (the parser must accept them) and values it forbids (a 400).
import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers/app.js';
import { loadCatalog } from '../robustness/fuzz-lib.js';

const { app, store } = await testApp();
const catalog = await loadCatalog(app, store);

interface Param {
  name: string;
  in: string;
  schema?: {
    type?: string;
    enum?: unknown[];
    anyOf?: { const?: unknown; enum?: unknown[] }[];
    oneOf?: { const?: unknown; enum?: unknown[] }[];
    minimum?: number;
    maximum?: number;
  };
}
interface Operation {
  operationId: string;
  parameters?: Param[];
}

const doc = (await app.inject('/openapi.json')).json<{ paths: Record<string, Record<string, Operation>> }>();
const operations = Object.values(doc.paths)
  .flatMap((item) => Object.values(item))
  .filter((op) => typeof op.operationId === 'string' && !op.operationId.startsWith('mockyard_'));

const item = catalog.archive.find((i) => i.status === 'ok' && i.files.length > 0)!;
const releaseAccess = catalog.appcenter.access[0]!;
const dataset = catalog.dkan[0]!;

/** A request each operation answers with 200, to which one parameter at a time is added. */
const BASELINES: Record<string, { url: string; headers?: Record<string, string> }> = {
  getItemMetadata: { url: `/archive/metadata/${item.identifier}?` },
  getItemMetadataPath: { url: `/archive/metadata/${item.identifier}/files?` },
  downloadItemFile: { url: `/archive/download/${item.identifier}/${encodeURIComponent(item.files[0]!)}?` },
  downloadItemFileFromDataNode: {
    url: `/archive/${item.node}/items/${item.identifier}/${encodeURIComponent(item.files[0]!)}?`,
  },
  getPopularCars: { url: `/marketcheck/popular/cars?api_key=${catalog.marketcheck.apiKeys[0]}&car_type=used&` },
  releases_list: {
    url: `/appcenter/v0.1/apps/${releaseAccess.owner}/${releaseAccess.app}/releases?`,
    headers: { 'x-api-token': releaseAccess.token },
  },
  StringDefinitions_GetDefinitions: {
    url: '/agco/api/v2/StringDefinitions?',
    headers: { authorization: `Bearer ${catalog.agco.tokens[0]}` },
  },
  scrapeSearch: { url: '/archive/services/search/v1/scrape?q=*:*&' },
  scrapeSearchPost: { url: '/archive/services/search/v1/scrape?q=*:*&' },
  advancedSearch: { url: '/archive/advancedsearch.php?q=*:*&output=json&' },
  StringDefinitions_GetDefinition: {
    url: `/agco/api/v2/StringDefinitions/${catalog.agco.stringIds?.[0] ?? ''}?`,
    headers: { authorization: `Bearer ${catalog.agco.tokens[0]}` },
  },
  Languages_GetLanguages: {
    url: '/agco/api/v2/Languages?',
    headers: { authorization: `Bearer ${catalog.agco.tokens[0]}` },
  },
  'datastore-datasetindex-query-get': { url: `/dkan/datastore/query/${dataset.datasetId}/${dataset.index}?` },
  'datastore-resource-query-get': { url: `/dkan/datastore/query/${dataset.distributionId}?` },
  'datastore-query-get': {
    url: `/dkan/datastore/query?resources[0][id]=${dataset.distributionId}&resources[0][alias]=t&`,
  },
  'datastore-query-download-get': {
    url: `/dkan/datastore/query/download?resources[0][id]=${dataset.distributionId}&resources[0][alias]=t&format=csv&limit=5&`,
  },
  'datastore-resource-query-download-get': {
    url: `/dkan/datastore/query/${dataset.distributionId}/download?format=csv&limit=5&`,
  },
  'datastore-datasetindex-query-download-get': {
    url: `/dkan/datastore/query/${dataset.datasetId}/${dataset.index}/download?format=csv&limit=5&`,
  },
  'metastore-get-all': { url: '/dkan/metastore/schemas/dataset/items?' },
  'metastore-get': { url: `/dkan/metastore/schemas/dataset/items/${dataset.datasetId}?` },
  'search-get': { url: '/dkan/search?' },
  'datastore-sql': {
    url: `/dkan/datastore/sql?query=${encodeURIComponent(`[SELECT * FROM ${dataset.distributionId}][LIMIT 2];`)}&`,
  },
};

/** Parameters that the operation only takes together with others (a rule of the real service, not a type). */
const COMPANIONS: Record<string, Record<string, string>> = {
  includeDeletedLanguages: { includeTranslations: 'true' },
  matchingTranslationsOnly: { includeTranslations: 'true', stringText: 'a*' },
};

function samples(schema: NonNullable<Param['schema']>): { valid: string[]; invalid: string[] } | null {
  const choices =
    schema.enum ?? (schema.anyOf ?? schema.oneOf)?.flatMap((s) => (s.const !== undefined ? [s.const] : (s.enum ?? [])));
  if (choices && choices.length > 0) return { valid: choices.map(String), invalid: ['not-one-of-them'] };
  if (schema.type === 'boolean') return { valid: ['true', 'false'], invalid: ['maybe', '2'] };
  if (schema.type === 'integer' || schema.type === 'number') {
    const min = schema.minimum ?? 0;
    const valid = [String(min), String(min + 7)];
    if (schema.maximum !== undefined) valid.push(String(schema.maximum));
    const invalid = ['abc', '1e309'];
    if (schema.type === 'integer') invalid.push(`${min}.5`);
    if (schema.minimum !== undefined) invalid.push(String(schema.minimum - 1));
    if (schema.maximum !== undefined) invalid.push(String(schema.maximum + 1));
    return { valid, invalid };
  }
  return null;
}

describe('route schemas and parsers agree on every typed query parameter', () => {
  it('has a baseline request for every area operation with query parameters', () => {
    const withQuery = operations.filter((op) => (op.parameters ?? []).some((p) => p.in === 'query'));
    expect(withQuery.map((op) => op.operationId).filter((id) => !BASELINES[id])).toEqual([]);
  });

  for (const op of operations) {
    const params = (op.parameters ?? []).filter((p) => p.in === 'query' && p.schema && samples(p.schema));
    for (const param of params) {
      it(`${op.operationId}: ${param.name}`, async () => {
        const base = BASELINES[op.operationId]!;
        expect((await app.inject({ url: base.url, headers: base.headers })).statusCode, 'baseline').toBe(200);
        const { valid, invalid } = samples(param.schema!)!;
        const [path, query] = base.url.split('?') as [string, string];
        const send = (value: string) => {
          const search = new URLSearchParams(query);
          for (const [name, companion] of Object.entries(COMPANIONS[param.name] ?? {})) search.set(name, companion);
          search.set(param.name, value);
          return app.inject({ url: `${path}?${search.toString()}`, headers: base.headers });
        };
        for (const value of valid)
          expect((await send(value)).statusCode, `${param.name}=${value} is valid by its schema`).toBeLessThan(400);
        for (const value of invalid)
          expect((await send(value)).statusCode, `${param.name}=${value} is invalid by its schema`).toBe(400);
      });
    }
  }
});
