// The two DKAN query routes: resolve the resource, hand the raw query string to the query module, send its bytes.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FixtureStore } from '../../platform/fixture-store.js';
import type { AreaPluginOptions, ErrorAnswer, ErrorContext } from '../types.js';
import { resourceAt, resourceById, type Resource } from './datasets.js';
import { DkanError, badRequest, distributionNotFound, noResourceFound, notImported, phpTimestamp, routeNotFound } from './errors.js';
import { cachedAnswer, runQuery, type Answer } from './queries.js';
import { DatasetIndexParamsSchema, DistributionParamsSchema, QuerystringSchema, responses } from './schemas.js';

export const OP_DATASET_INDEX = 'datastore-datasetindex-query-get';
export const OP_DISTRIBUTION = 'datastore-resource-query-get';

function send(reply: FastifyReply, answer: Answer): FastifyReply {
  reply.code(200).header('content-type', answer.contentType);
  if (answer.headers) reply.headers(answer.headers);
  return reply.send(answer.body);
}

const rawQuery = (url: string): string => {
  const i = url.indexOf('?');
  return i < 0 ? '' : url.slice(i + 1);
};

export async function dkanRoutes(fastify: FastifyInstance, opts: AreaPluginOptions): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { config } = opts;

  // Both operations run the same query; they differ only in how the resource is addressed.
  const route = (path: string, operationId: string, summary: string, params: object, resolve: (store: FixtureStore, params: Record<string, string>) => Resource) =>
    app.get(path, { schema: { operationId, tags: ['dkan'], summary, params, querystring: QuerystringSchema, response: responses } }, async (request, reply) => {
      const { store } = request;
      const hit = cachedAnswer(store, config, request.url);
      if (hit) return send(reply, hit);
      return send(reply, await runQuery(app.queryPool, store, config, resolve(store, request.params as Record<string, string>), rawQuery(request.url), request.url));
    });

  route('/datastore/query/:datasetId/:index', OP_DATASET_INDEX, 'Query one datastore resource by dataset id and resource index', DatasetIndexParamsSchema, (store, { datasetId = '', index = '' }) => {
    const resource = resourceAt(store, datasetId, index);
    if (!resource) throw noResourceFound(datasetId, index);
    return resource;
  });
  route('/datastore/query/:distributionId', OP_DISTRIBUTION, 'Query one datastore resource by distribution id', DistributionParamsSchema, (store, { distributionId = '' }) => {
    const resource = resourceById(store, distributionId);
    if (!resource) throw distributionNotFound(distributionId);
    return resource;
  });
}

/**
 * DKAN's error body for a status. Without a message: the natural one of the request's operation (the
 * missing resource for 404, a resource still importing for 400), or DKAN's route 404 off the routes.
 */
export function formatDkanError({ status, message, request, cause }: ErrorContext): ErrorAnswer {
  const contentType = 'application/json; charset=utf-8';
  if (cause instanceof DkanError) return { contentType, body: JSON.stringify(cause.body) };
  if (status >= 500) return { contentType, body: JSON.stringify({ message: 'An internal error occurred.', status: 500, timestamp: phpTimestamp() }) };
  if (message !== undefined) return { contentType, body: JSON.stringify({ message, status, timestamp: phpTimestamp() }) };
  const params = (request.params ?? {}) as Record<string, string | undefined>;
  let err: DkanError;
  if (params.datasetId !== undefined) {
    const index = params.index ?? '0';
    err = status === 404 ? noResourceFound(params.datasetId, index) : notImported(resourceAt(request.store, params.datasetId, index)?.distributionId || params.datasetId);
  } else if (params.distributionId !== undefined) {
    err = status === 404 ? distributionNotFound(params.distributionId) : notImported(params.distributionId);
  } else {
    err = status === 404 ? routeNotFound(request.method, request.url) : badRequest('Bad request.');
  }
  return { contentType, body: JSON.stringify({ ...err.body, ...(err.body.status !== undefined ? { status } : {}) }) };
}
