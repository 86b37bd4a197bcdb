// The routes around the datastore query that DKAN clients call first: the metastore (metastore.routing.yml),
// the catalogue search (metastore_search.routing.yml), the SQL endpoint and the import summary
// (datastore.routing.yml). Handlers read the request and hand it to their module.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from '../../config.js';
import type { AreaPluginOptions } from '../../platform/area.js';
import type { FixtureStore } from '../../platform/data/fixture-store.js';
import { resourceById, type Resource } from './datasets.js';
import { DkanError, phpTimestamp } from './errors.js';
import { metastoreOf, SCHEMAS, type Item } from './metastore.js';
import { parseBody, parseQueryString } from './parse.js';
import { search } from './search.js';
import { runSql } from './sql-endpoint.js';
import { tableSchema } from './sql.js';
import {
  ImportParamsSchema,
  importResponses,
  ItemParamsSchema,
  MetastoreQuerystringSchema,
  metastoreItemResponses,
  metastoreListResponses,
  SchemaParamsSchema,
  SearchQuerystringSchema,
  SqlBodySchema,
  SqlQuerystringSchema,
  searchResponses,
  sqlResponses,
} from './catalog-schemas.js';
import type { Answer } from './queries.js';
import type { DkanApp } from './dkan-app.js';

export const CATALOG_OPS = {
  metastoreList: 'metastore-get-all',
  metastoreItem: 'metastore-get',
  search: 'search-get',
  sqlGet: 'datastore-sql',
  sqlPost: 'datastore-sql-post',
  importSummary: 'datastore-get',
} as const;

const tags = ['dkan'];
const JSON_TYPE = 'application/json';
const notFound = (message: string): DkanError =>
  new DkanError(404, { message, status: 404, timestamp: phpTimestamp() });

const rawQuery = (url: string): string => {
  const i = url.indexOf('?');
  return i < 0 ? '' : url.slice(i + 1);
};

const sendJson = (reply: FastifyReply, body: unknown): FastifyReply =>
  reply
    .code(200)
    .header('content-type', JSON_TYPE)
    .send(Buffer.from(JSON.stringify(body)));
const sendAnswer = (reply: FastifyReply, answer: Answer): FastifyReply =>
  reply.code(200).header('content-type', answer.contentType).send(answer.body);

/** MetastoreController::wantObjectWithReferences: the parameter present, whatever its value. */
function wantsReferences(request: FastifyRequest): boolean {
  const q = request.query as Record<string, unknown>;
  return q['show-reference-ids'] !== undefined || q.show_reference_ids !== undefined;
}

/** One schema's items in the form asked for. */
function itemsOf(store: FixtureStore, schemaId: string, references: boolean): { id: string; body: unknown }[] {
  const metastore = metastoreOf(store);
  if (schemaId === 'dataset')
    return metastore.datasets.map((d) => ({ id: d.id, body: references ? d.referenced : d.plain }));
  if (!(SCHEMAS as readonly string[]).includes(schemaId)) throw notFound(`Schema ${schemaId} not found.`);
  return (metastore.items.get(schemaId) ?? []).map((item: Item) => ({
    id: item.identifier,
    // removeReferences drops the resource reference the distribution's downloadURL keeps.
    body:
      references || typeof item.data !== 'object'
        ? item
        : { ...item, data: withoutRefs(item.data as Record<string, unknown>) },
  }));
}

const withoutRefs = (o: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(o).filter(([k]) => !k.includes('%')));

/** ImportController::summary: a distribution id, or the resource id its downloadURL refers to. */
function importedResource(store: FixtureStore, identifier: string): Resource | undefined {
  const direct = resourceById(store, identifier);
  if (direct) return direct;
  const [id, version] = identifier.split('__');
  for (const item of metastoreOf(store).items.get('distribution') ?? []) {
    const file = (item.data as { '%Ref:downloadURL': { data: { identifier: string; version: string } }[] })[
      '%Ref:downloadURL'
    ][0]!.data;
    if (file.identifier === id && (version === undefined || version === file.version))
      return resourceById(store, item.identifier);
  }
  return undefined;
}

export function catalogRoutes(fastify: FastifyInstance, opts: AreaPluginOptions): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  metastoreRoutes(app);
  searchRoute(app, opts.config);
  sqlRoutes(app, opts.config);
  importRoute(app);
}

/** metastore.routing.yml: a schema's items, and one item. */
function metastoreRoutes(app: DkanApp): void {
  app.get(
    '/metastore/schemas/:schemaId/items',
    {
      schema: {
        operationId: CATALOG_OPS.metastoreList,
        tags,
        summary: 'Every item of a metastore schema (datasets: DCAT-US JSON)',
        params: SchemaParamsSchema,
        querystring: MetastoreQuerystringSchema,
        response: metastoreListResponses,
      },
    },
    async (request, reply) =>
      sendJson(
        reply,
        itemsOf(request.store, request.params.schemaId, wantsReferences(request)).map((i) => i.body),
      ),
  );

  app.get(
    '/metastore/schemas/:schemaId/items/:identifier',
    {
      schema: {
        operationId: CATALOG_OPS.metastoreItem,
        tags,
        summary: 'One metastore item (a dataset: DCAT-US JSON with its distributions)',
        params: ItemParamsSchema,
        querystring: MetastoreQuerystringSchema,
        response: metastoreItemResponses,
      },
    },
    async (request, reply) => {
      const { schemaId, identifier } = request.params;
      const found = itemsOf(request.store, schemaId, wantsReferences(request)).find((i) => i.id === identifier);
      if (!found) throw notFound(`Error retrieving metadata: ${schemaId} ${identifier} not found.`);
      return sendJson(reply, found.body);
    },
  );
}

/** metastore_search.routing.yml: the catalogue search. */
function searchRoute(app: DkanApp, config: Config): void {
  app.get(
    '/search',
    {
      schema: {
        operationId: CATALOG_OPS.search,
        tags,
        summary: 'Search the catalogue: fulltext, facet filters, sort, paging (page-size at most 100)',
        querystring: SearchQuerystringSchema,
        response: searchResponses,
      },
    },
    async (request, reply) => {
      const raw = rawQuery(request.url);
      const params = parseQueryString(raw) as Record<string, string | string[] | undefined>;
      return sendAnswer(reply, await search(app.queryPool, request.store, config, params));
    },
  );
}

/** datastore.routing.yml: the SQL endpoint, GET and POST. */
function sqlRoutes(app: DkanApp, config: Config): void {
  const sqlSchema = (method: 'GET' | 'POST') => ({
    operationId: method === 'GET' ? CATALOG_OPS.sqlGet : CATALOG_OPS.sqlPost,
    tags,
    summary: `Query a datastore resource with DKAN's bracket SQL${method === 'GET' ? '' : ' (as the JSON body)'}`,
    ...(method === 'GET' ? { querystring: SqlQuerystringSchema } : { body: SqlBodySchema }),
    response: sqlResponses,
  });
  app.get('/datastore/sql', { schema: sqlSchema('GET') }, async (request, reply) => {
    // WebServiceApi::runQueryGet: isset() of either flag, whatever its value.
    const q = parseQueryString(rawQuery(request.url));
    const query = Array.isArray(q.query) ? q.query[q.query.length - 1] : q.query;
    const showDbColumns = q.show_db_columns !== undefined || q['show-db-columns'] !== undefined;
    const sql = { query: typeof query === 'string' ? query : undefined, showDbColumns, get: true };
    return sendAnswer(reply, await runSql(app.queryPool, request.store, config, sql));
  });
  app.post('/datastore/sql', { schema: sqlSchema('POST') }, async (request, reply) => {
    let body: Record<string, unknown> = {};
    try {
      body = parseBody(request.body);
    } catch {
      // json_decode of a body that is not JSON gives null: no `query` property.
    }
    const showDbColumns = Boolean(body.show_db_columns) && body.show_db_columns !== '0';
    const sql = { query: typeof body.query === 'string' ? body.query : undefined, showDbColumns, get: false };
    return sendAnswer(reply, await runSql(app.queryPool, request.store, config, sql));
  });
}

/** datastore.routing.yml: the import summary of one resource. */
function importRoute(app: DkanApp): void {
  app.get(
    '/datastore/imports/:identifier',
    {
      schema: {
        operationId: CATALOG_OPS.importSummary,
        tags,
        summary: "A resource's datastore table: columns, their number and the number of rows",
        params: ImportParamsSchema,
        response: importResponses,
      },
    },
    async (request, reply) => {
      const { identifier } = request.params;
      const resource = importedResource(request.store, identifier);
      if (!resource) throw notFound(`A datastore for resource ${identifier} does not exist.`);
      const { fields } = tableSchema(resource, true);
      // TableSummary::jsonSerialize array_filter()s its values: no indexes here, no numOfRows when 0.
      return sendJson(reply, {
        numOfColumns: Object.keys(fields).length,
        columns: fields,
        ...(resource.rows > 0 ? { numOfRows: resource.rows } : {}),
      });
    },
  );
}
