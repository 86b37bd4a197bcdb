// The DKAN query routes (datastore.routing.yml): resolve the resource, read the query (GET parameters or POST
// JSON body), hand it to the query module, send its bytes.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
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
import { parseBody, parseQueryString, readQuery } from './parse.js';
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

type Resolve = (store: FixtureStore, params: Record<string, string>) => Resource | undefined;

export async function dkanRoutes(fastify: FastifyInstance, opts: AreaPluginOptions): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { config } = opts;

  // DKAN reads the body as JSON whatever its Content-Type says (AbstractQueryController::getJson).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  const sentOf = (request: FastifyRequest) =>
    request.method === 'POST' ? parseBody(request.body) : parseQueryString(rawQuery(request.url));
  const read = (
    request: FastifyRequest,
    sent: Record<string, unknown>,
    resource: Resource | undefined,
    download: boolean,
  ) =>
    readQuery(sent, {
      ...(resource ? { resource } : {}),
      byId: (id) => resourceById(request.store, id),
      maxLimit: config.dkanMaxLimit,
      download,
    });

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
  const none: Resolve = () => undefined;

  const bodies = {
    resource: inlineDefinitions(resourceQuerySchema(config.dkanMaxLimit)),
    multi: inlineDefinitions(querySchema(config.dkanMaxLimit)),
  };

  /** One query route: GET with the query in the query string, POST with it as the JSON body. */
  const route = (
    method: 'GET' | 'POST',
    path: string,
    operationId: string,
    summary: string,
    params: object | undefined,
    resolve: Resolve,
    download: boolean,
  ) => {
    const multi = resolve === none;
    const schema = {
      operationId,
      tags: ['dkan'],
      summary,
      ...(params ? { params } : {}),
      ...(method === 'GET'
        ? {
            querystring: download
              ? multi
                ? MultiDownloadQuerystringSchema
                : DownloadQuerystringSchema
              : multi
                ? MultiQuerystringSchema
                : QuerystringSchema,
          }
        : { body: multi ? bodies.multi : bodies.resource }),
      response: download ? downloadResponses : responses,
    };
    app.route({
      method,
      url: path,
      schema,
      // A download streams: nothing to keep in the answer cache.
      ...(download ? { config: { answerCache: false } } : {}),
      handler: async (request, reply) => {
        const { store } = request;
        const sent = sentOf(request);
        const resource = resolve(store, request.params as Record<string, string>);
        const q = read(request, sent, resource, download);
        if (!download) {
          const from = { sent, resourceId: resource?.distributionId ?? null };
          return send(reply, await runQuery(app.queryPool, store, config, q, from));
        }
        // QueryDownloadController::formatResponse streams CSV only.
        if (q.format !== 'csv') throw badRequest('Streaming not currently available for JSON responses');
        return send(reply, downloadQuery(app.queryPool, store, config, q));
      },
    });
  };

  for (const method of ['GET', 'POST'] as const) {
    const s = method === 'GET' ? 'Get' : 'Post';
    const how = method === 'GET' ? ' (query in the query string)' : ' (query as the JSON body)';
    route(
      method,
      '/datastore/query',
      OPS[`multi${s}`],
      `Query one or more datastore resources, with joins${how}`,
      undefined,
      none,
      false,
    );
    route(
      method,
      '/datastore/query/download',
      OPS[`multiDownload${s}`],
      `Stream a query over one or more resources as CSV${how}`,
      undefined,
      none,
      true,
    );
    route(
      method,
      '/datastore/query/:distributionId',
      OPS[`distribution${s}`],
      `Query one datastore resource by distribution id${how}`,
      DistributionParamsSchema,
      distribution,
      false,
    );
    route(
      method,
      '/datastore/query/:distributionId/download',
      OPS[`distributionDownload${s}`],
      `Stream one resource's query result as CSV${how}`,
      DistributionParamsSchema,
      distribution,
      true,
    );
    route(
      method,
      '/datastore/query/:datasetId/:index',
      OPS[`datasetIndex${s}`],
      `Query one datastore resource by dataset id and resource index${how}`,
      DatasetIndexParamsSchema,
      datasetIndex,
      false,
    );
    route(
      method,
      '/datastore/query/:datasetId/:index/download',
      OPS[`datasetIndexDownload${s}`],
      `Stream one resource's query result as CSV${how}`,
      DatasetIndexParamsSchema,
      datasetIndex,
      true,
    );
  }

  catalogRoutes(fastify, opts);

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
    const sent = request.method === 'POST' ? parseBody(request.body) : parseQueryString(rawQuery(request.url));
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
