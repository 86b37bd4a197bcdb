// The DKAN query routes (datastore.routing.yml): resolve the resource, read the query (GET parameters or POST
// JSON body), hand it to the query module, send its bytes.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from '../../config.js';
import type { FixtureStore } from '../../platform/data/fixture-store.js';
import type { AreaPluginOptions, ErrorAnswer, ErrorContext } from '../../platform/area.js';
import { resourceAt, resourceById, type Resource } from './datasets.js';
import {
  badRequest,
  DkanError,
  distributionNotFound,
  noResourceFound,
  notImported,
  phpTimestamp,
  routeNotFound,
} from './errors.js';
import { catalogRoutes } from './catalog-routes.js';
import type { DkanApp } from './dkan-app.js';
import { LIMITS, parseBody, parseQueryString, readQuery } from './parse.js';
import { downloadQuery, runQuery, type Answer, type StreamAnswer } from './queries.js';
import { inlineDefinitions, querySchema, resourceQuerySchema } from './query-schema.js';
import {
  DatasetIndexParamsSchema,
  DistributionParamsSchema,
  DownloadQuerystringSchema,
  downloadResponses,
  MultiDownloadQuerystringSchema,
  MultiQuerystringSchema,
  QuerystringSchema,
  responses,
} from './schemas.js';

// DKAN's operationIds (modules/datastore/docs/openapi_spec.json); the download POSTs and the schema route are ours.
export const OP_DATASET_INDEX = 'datastore-datasetindex-query-get';
export const OP_DISTRIBUTION = 'datastore-resource-query-get';
export const OPS = {
  datasetIndexGet: OP_DATASET_INDEX,
  datasetIndexPost: 'datastore-datasetindex-query-post',
  distributionGet: OP_DISTRIBUTION,
  distributionPost: 'datastore-resource-query-post',
  multiGet: 'datastore-query-get',
  multiPost: 'datastore-query-post',
  multiDownloadGet: 'datastore-query-download-get',
  multiDownloadPost: 'datastore-query-download-post',
  distributionDownloadGet: 'datastore-resource-query-download-get',
  distributionDownloadPost: 'datastore-resource-query-download-post',
  datasetIndexDownloadGet: 'datastore-datasetindex-query-download-get',
  datasetIndexDownloadPost: 'datastore-datasetindex-query-download-post',
  schema: 'datastore-query-schema-get',
} as const;

function send(reply: FastifyReply, answer: Answer | StreamAnswer): FastifyReply {
  reply.code(200).header('content-type', answer.contentType);
  if (answer.headers) reply.headers(answer.headers);
  return reply.send(answer.body);
}

const rawQuery = (url: string): string => {
  const i = url.indexOf('?');
  return i < 0 ? '' : url.slice(i + 1);
};

/** What the request sent: the POST's JSON body, or the GET's query string. */
const sentOf = (request: FastifyRequest) =>
  request.method === 'POST' ? parseBody(request.body) : parseQueryString(rawQuery(request.url));

type Resolve = (store: FixtureStore, params: Record<string, string>) => Resource | undefined;

const datasetIndex: Resolve = (store, { datasetId = '', index = '' }) => {
  const resource = resourceAt(store, datasetId, index);
  if (!resource) throw noResourceFound(datasetId, index);
  return resource;
};
const distribution: Resolve = (store, { distributionId = '' }) => {
  const resource = resourceById(store, distributionId);
  if (!resource) throw distributionNotFound(distributionId);
  return resource;
};
/** /datastore/query names its resources in the query itself. */
const none: Resolve = () => undefined;

/** One query route, registered as GET (query in the query string) and POST (query as the JSON body). */
interface QueryRoute {
  url: string;
  op: 'multi' | 'multiDownload' | 'distribution' | 'distributionDownload' | 'datasetIndex' | 'datasetIndexDownload';
  summary: string;
  params?: object;
  resolve: Resolve;
  download: boolean;
}

const QUERY_ROUTES: readonly QueryRoute[] = [
  {
    url: '/datastore/query',
    op: 'multi',
    summary: 'Query one or more datastore resources, with joins',
    resolve: none,
    download: false,
  },
  {
    url: '/datastore/query/download',
    op: 'multiDownload',
    summary: 'Stream a query over one or more resources as CSV',
    resolve: none,
    download: true,
  },
  {
    url: '/datastore/query/:distributionId',
    op: 'distribution',
    summary: 'Query one datastore resource by distribution id',
    params: DistributionParamsSchema,
    resolve: distribution,
    download: false,
  },
  {
    url: '/datastore/query/:distributionId/download',
    op: 'distributionDownload',
    summary: "Stream one resource's query result as CSV",
    params: DistributionParamsSchema,
    resolve: distribution,
    download: true,
  },
  {
    url: '/datastore/query/:datasetId/:index',
    op: 'datasetIndex',
    summary: 'Query one datastore resource by dataset id and resource index',
    params: DatasetIndexParamsSchema,
    resolve: datasetIndex,
    download: false,
  },
  {
    url: '/datastore/query/:datasetId/:index/download',
    op: 'datasetIndexDownload',
    summary: "Stream one resource's query result as CSV",
    params: DatasetIndexParamsSchema,
    resolve: datasetIndex,
    download: true,
  },
];

export async function dkanRoutes(fastify: FastifyInstance, opts: AreaPluginOptions): Promise<void> {
  // DKAN reads the body as JSON whatever its Content-Type says (AbstractQueryController::getJson), so every
  // body, the SQL POST's too, reaches its handler as the string sent.
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', { parseAs: 'string', bodyLimit: LIMITS.bodyBytes }, (_request, body, done) =>
    done(null, body),
  );
  queryRoutes(fastify.withTypeProvider<TypeBoxTypeProvider>(), opts.config);
  catalogRoutes(fastify, opts);
  querySchemaRoute(fastify, opts.config);
}

/** The datastore query routes: every entry of QUERY_ROUTES as a GET and as a POST. */
function queryRoutes(app: DkanApp, config: Config): void {
  const bodies = {
    resource: inlineDefinitions(resourceQuerySchema(config.dkanMaxLimit)),
    multi: inlineDefinitions(querySchema(config.dkanMaxLimit)),
  };
  for (const method of ['GET', 'POST'] as const) {
    for (const route of QUERY_ROUTES) queryRoute(app, config, method, route, bodies);
  }
}

function queryRoute(
  app: DkanApp,
  config: Config,
  method: 'GET' | 'POST',
  { url, op, summary, params, resolve, download }: QueryRoute,
  bodies: { resource: object; multi: object },
): void {
  const multi = resolve === none;
  const querystring = download
    ? multi
      ? MultiDownloadQuerystringSchema
      : DownloadQuerystringSchema
    : multi
      ? MultiQuerystringSchema
      : QuerystringSchema;
  const how = method === 'GET' ? ' (query in the query string)' : ' (query as the JSON body)';
  const schema = {
    operationId: OPS[`${op}${method === 'GET' ? 'Get' : 'Post'}`],
    tags: ['dkan'],
    summary: `${summary}${how}`,
    ...(params ? { params } : {}),
    ...(method === 'GET' ? { querystring } : { body: multi ? bodies.multi : bodies.resource }),
    response: download ? downloadResponses : responses,
  };
  app.route({
    method,
    url,
    schema,
    // A download streams: nothing to keep in the answer cache.
    ...(download ? { config: { answerCache: false } } : {}),
    handler: async (request, reply) => {
      const { store } = request;
      const sent = sentOf(request);
      const resource = resolve(store, request.params as Record<string, string>);
      const q = readQuery(sent, {
        ...(resource ? { resource } : {}),
        byId: (id) => resourceById(store, id),
        maxLimit: config.dkanMaxLimit,
        download,
      });
      if (!download) {
        const from = { sent, resourceId: resource?.distributionId ?? null };
        return send(reply, await runQuery(app.queryPool, store, config, q, from));
      }
      // QueryDownloadController::formatResponse streams CSV only.
      if (q.format !== 'csv') throw badRequest('Streaming not currently available for JSON responses');
      return send(reply, await downloadQuery(app.queryPool, store, config, q));
    },
  });
}

/** The query's JSON schema, as the POST routes take it. */
function querySchemaRoute(fastify: FastifyInstance, config: Config): void {
  const served = querySchema(config.dkanMaxLimit);
  fastify.get(
    '/datastore/query/schema',
    {
      schema: {
        operationId: OPS.schema,
        tags: ['dkan'],
        summary: 'The datastore query JSON schema (the POST body of the query routes)',
        response: { 200: { description: 'JSON Schema (draft-07)', type: 'object', additionalProperties: true } },
      },
    },
    async (_request, reply) =>
      reply
        .code(200)
        .header('content-type', 'application/json')
        .send(Buffer.from(JSON.stringify(served))),
  );
}

/** The first resource id a /datastore/query request names, for its forced errors. */
function firstResourceId(request: FastifyRequest): string {
  try {
    const sent = sentOf(request);
    const resources = sent.resources as { id?: unknown }[] | Record<string, { id?: unknown }> | undefined;
    const first = Array.isArray(resources) ? resources[0] : resources?.['0'];
    return typeof first?.id === 'string' ? first.id : '';
  } catch {
    return '';
  }
}

/**
 * DKAN's error body for a status. Without a message: the natural one of the request's operation (the
 * missing resource for 404, a resource still importing for 400), or DKAN's route 404 off the routes.
 */
export function formatDkanError({ status, message, request, cause }: ErrorContext): ErrorAnswer {
  const contentType = 'application/json; charset=utf-8';
  if (cause instanceof DkanError) return { contentType, body: JSON.stringify(cause.body) };
  if (status >= 500) {
    // A busy service's 503 says so; any other failure is DKAN's generic one. The body's status is the answer's.
    const text = status === 503 ? 'The service is temporarily unavailable.' : 'An internal error occurred.';
    return { contentType, body: JSON.stringify({ message: message ?? text, status, timestamp: phpTimestamp() }) };
  }
  if (message !== undefined)
    return { contentType, body: JSON.stringify({ message, status, timestamp: phpTimestamp() }) };
  const params = (request.params ?? {}) as Record<string, string | undefined>;
  let err: DkanError;
  if (params.datasetId !== undefined) {
    const index = params.index ?? '0';
    err =
      status === 404
        ? noResourceFound(params.datasetId, index)
        : notImported(resourceAt(request.store, params.datasetId, index)?.distributionId || params.datasetId);
  } else if (params.distributionId !== undefined) {
    err = status === 404 ? distributionNotFound(params.distributionId) : notImported(params.distributionId);
  } else if (
    request.routeOptions.url?.endsWith('/datastore/query') ||
    request.routeOptions.url?.endsWith('/datastore/query/download')
  ) {
    // /datastore/query names its resources in the query.
    const id = firstResourceId(request);
    err = status === 404 ? distributionNotFound(id) : notImported(id);
  } else {
    err = status === 404 ? routeNotFound(request.method, request.url) : badRequest('Bad request.');
  }
  return { contentType, body: JSON.stringify({ ...err.body, ...(err.body.status !== undefined ? { status } : {}) }) };
}
