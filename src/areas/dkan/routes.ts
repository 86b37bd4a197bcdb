// The two DKAN query routes: resolve the resource, hand the raw query string to the query module, send its bytes.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AreaPluginOptions } from '../types.js';
import { resourceAt, resourceById, type Resource } from './datasets.js';
import { DkanError, distributionNotFound, noResourceFound, notImported, phpTimestamp, routeNotFound, schemaError } from './errors.js';
import { DkanQueries, type Answer } from './queries.js';
import { DatasetIndexParamsSchema, DistributionParamsSchema, QuerystringSchema, responses } from './schemas.js';

export const OP_DATASET_INDEX = 'datastore-datasetindex-query-get';
export const OP_DISTRIBUTION = 'datastore-resource-query-get';

// DKAN reads the raw query string the way PHP does; Fastify's validation would reject its bracket form.
const noValidation = () => () => true;

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
  const queries = new DkanQueries(opts.store, opts.config);
  app.addHook('onClose', async () => {
    queries.close();
  });

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
    const err = schemaError('type', '', error.message);
    return reply.code(400).send(err.body);
  });

  // Both operations run the same query; they differ only in how the resource is addressed.
  const route = (path: string, operationId: string, summary: string, params: object, resolve: (params: Record<string, string>) => Resource) =>
    app.get(
      path,
      { validatorCompiler: noValidation, schema: { operationId, tags: ['dkan'], summary, params, querystring: QuerystringSchema, response: responses } },
      async (request, reply) => {
        const hit = queries.cached(request.url);
        if (hit) return send(reply, hit);
        return send(reply, queries.run(resolve(request.params as Record<string, string>), rawQuery(request.url), request.url));
      },
    );

  route('/datastore/query/:datasetId/:index', OP_DATASET_INDEX, 'Query one datastore resource by dataset id and resource index', DatasetIndexParamsSchema, ({ datasetId = '', index = '' }) => {
    const resource = resourceAt(opts.store, datasetId, index);
    if (!resource) throw noResourceFound(datasetId, index);
    return resource;
  });
  route('/datastore/query/:distributionId', OP_DISTRIBUTION, 'Query one datastore resource by distribution id', DistributionParamsSchema, ({ distributionId = '' }) => {
    const resource = resourceById(opts.store, distributionId);
    if (!resource) throw distributionNotFound(distributionId);
    return resource;
  });
}

/** The natural 400 and 404 bodies of an operation, for forced errors. */
export function forcedError(request: FastifyRequest, operationId: string, status: number, store?: AreaPluginOptions['store']): DkanError {
  // Forced statuses are applied after routing, so the path parameters are always there.
  const params = (request.params ?? {}) as Record<string, string | undefined>;
  if (operationId === OP_DATASET_INDEX) {
    const datasetId = params.datasetId ?? '';
    const index = params.index ?? '0';
    if (status === 404) return noResourceFound(datasetId, index);
    return notImported((store && resourceAt(store, datasetId, index)?.distributionId) || datasetId);
  }
  const id = params.distributionId ?? '';
  return status === 404 ? distributionNotFound(id) : notImported(id);
}
