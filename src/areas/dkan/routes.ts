// The DKAN query routes (datastore.routing.yml): resolve the resource, read the query (GET parameters or POST
// JSON body), hand it to the query module, send its bytes.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AreaPluginOptions } from '../types.js';
import { resourceAt, resourceById, type Resource } from './datasets.js';
import { badRequest, DkanError, distributionNotFound, noResourceFound, notImported, phpTimestamp, routeNotFound, schemaError } from './errors.js';
import { parseBody, parseQueryString, readQuery } from './parse.js';
import { DkanQueries, type Answer, type StreamAnswer } from './queries.js';
import { inlineDefinitions, querySchema, resourceQuerySchema } from './query-schema.js';
import {
  DatasetIndexParamsSchema,
  DistributionParamsSchema,
  DownloadQuerystringSchema,
  downloadResponses,
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

// DKAN reads the raw query string the way PHP does, and the raw body; Fastify's validation would reject both.
const noValidation = () => () => true;

function send(reply: FastifyReply, answer: Answer | StreamAnswer): FastifyReply {
  reply.code(200).header('content-type', answer.contentType);
  if (answer.headers) reply.headers(answer.headers);
  return reply.send(answer.body);
}

const rawQuery = (url: string): string => {
  const i = url.indexOf('?');
  return i < 0 ? '' : url.slice(i + 1);
};

type Resolve = (params: Record<string, string>) => Resource | undefined;

export async function dkanRoutes(fastify: FastifyInstance, opts: AreaPluginOptions): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { store, config } = opts;
  const queries = new DkanQueries(store, config);
  app.addHook('onClose', async () => {
    queries.close();
  });

  // DKAN reads the body as JSON whatever its Content-Type says (AbstractQueryController::getJson).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  app.setNotFoundHandler((request, reply) => {
    const err = routeNotFound(request.method, request.url);
    reply.code(err.statusCode).send(err.body);
  });

  app.setErrorHandler((error: Error & { statusCode?: number }, request, reply) => {
    if (error instanceof DkanError) return reply.code(error.statusCode).send(error.body);
    const status = error.statusCode ?? 500;
    if (status >= 500) {
      request.log.error({ err: error }, 'dkan query failed');
      return reply.code(500).send({ message: 'An internal error occurred.', status: 500, timestamp: phpTimestamp() });
    }
    const err = status === 413 || status === 415 ? new DkanError(status, { message: error.message, status, timestamp: phpTimestamp() }) : schemaError('type', '', error.message);
    return reply.code(err.statusCode).send(err.body);
  });

  const byId = (id: string) => resourceById(store, id);
  const read = (request: FastifyRequest, resource: Resource | undefined, download: boolean) =>
    readQuery(request.method === 'POST' ? parseBody(request.body) : parseQueryString(rawQuery(request.url)), {
      ...(resource ? { resource } : {}),
      byId,
      maxLimit: config.dkanMaxLimit,
      download,
    });

  const datasetIndex: Resolve = ({ datasetId = '', index = '' }) => {
    const resource = resourceAt(store, datasetId, index);
    if (!resource) throw noResourceFound(datasetId, index);
    return resource;
  };
  const distribution: Resolve = ({ distributionId = '' }) => {
    const resource = resourceById(store, distributionId);
    if (!resource) throw distributionNotFound(distributionId);
    return resource;
  };
  const none: Resolve = () => undefined;

  const bodies = { resource: inlineDefinitions(resourceQuerySchema(config.dkanMaxLimit)), multi: inlineDefinitions(querySchema(config.dkanMaxLimit)) };

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
        ? { querystring: download ? DownloadQuerystringSchema : multi ? MultiQuerystringSchema : QuerystringSchema }
        : { body: multi ? bodies.multi : bodies.resource }),
      response: download ? downloadResponses : responses,
    };
    app.route({
      method,
      url: path,
      validatorCompiler: noValidation,
      schema,
      handler: async (request, reply) => {
        const cacheable = method === 'GET' && !download;
        if (cacheable) {
          const hit = queries.cached(request.url);
          if (hit) return send(reply, hit);
        }
        const q = read(request, resolve(request.params as Record<string, string>), download);
        if (!download) return send(reply, queries.run(q, cacheable ? request.url : null));
        // QueryDownloadController::formatResponse streams CSV only.
        if (q.format !== 'csv') throw badRequest('Streaming not currently available for JSON responses');
        return send(reply, queries.download(q));
      },
    });
  };

  for (const method of ['GET', 'POST'] as const) {
    const s = method === 'GET' ? 'Get' : 'Post';
    const how = method === 'GET' ? ' (query in the query string)' : ' (query as the JSON body)';
    route(method, '/datastore/query', OPS[`multi${s}`], `Query one or more datastore resources, with joins${how}`, undefined, none, false);
    route(method, '/datastore/query/download', OPS[`multiDownload${s}`], `Stream a query over one or more resources as CSV${how}`, undefined, none, true);
    route(method, '/datastore/query/:distributionId', OPS[`distribution${s}`], `Query one datastore resource by distribution id${how}`, DistributionParamsSchema, distribution, false);
    route(method, '/datastore/query/:distributionId/download', OPS[`distributionDownload${s}`], `Stream one resource's query result as CSV${how}`, DistributionParamsSchema, distribution, true);
    route(method, '/datastore/query/:datasetId/:index', OPS[`datasetIndex${s}`], `Query one datastore resource by dataset id and resource index${how}`, DatasetIndexParamsSchema, datasetIndex, false);
    route(method, '/datastore/query/:datasetId/:index/download', OPS[`datasetIndexDownload${s}`], `Stream one resource's query result as CSV${how}`, DatasetIndexParamsSchema, datasetIndex, true);
  }

  const served = querySchema(config.dkanMaxLimit);
  fastify.get(
    '/datastore/query/schema',
    { schema: { operationId: OPS.schema, tags: ['dkan'], summary: 'The datastore query JSON schema (the POST body of the query routes)', response: { 200: { description: 'JSON Schema (draft-07)', type: 'object', additionalProperties: true } } } },
    async (_request, reply) => reply.code(200).header('content-type', 'application/json').send(Buffer.from(JSON.stringify(served))),
  );
}

/** Status codes each operation can be forced to: its natural 400 and 404. */
export const FORCED_STATUSES: Record<string, readonly number[]> = Object.fromEntries(
  Object.values(OPS)
    .filter((op) => op !== OPS.schema)
    .map((op) => [op, [400, 404]]),
);

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

/** The natural 400 and 404 bodies of an operation, for forced errors. */
export function forcedError(request: FastifyRequest, operationId: string, status: number, store?: AreaPluginOptions['store']): DkanError {
  // Forced statuses are applied after routing, so the path parameters are always there.
  const params = (request.params ?? {}) as Record<string, string | undefined>;
  if (params.datasetId !== undefined || operationId === OP_DATASET_INDEX) {
    const datasetId = params.datasetId ?? '';
    const index = params.index ?? '0';
    if (status === 404) return noResourceFound(datasetId, index);
    return notImported((store && resourceAt(store, datasetId, index)?.distributionId) || datasetId);
  }
  const id = params.distributionId ?? firstResourceId(request);
  return status === 404 ? distributionNotFound(id) : notImported(id);
}
