// GET /api/v2/StringDefinitions: schema, auth, thin handler, and the area's own 404 and error handling.
import type { FastifyError, FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { LRUCache } from 'lru-cache';
import type { AreaPluginOptions } from '../types.js';
import { AgcoError, badRequest, sendApiError, unauthorized } from './errors.js';
import { parseFilter, type DefinitionFilter } from './filters.js';
import { findDefinitions } from './queries.js';
import { isXml, mediaTypeOf, pagedResponseXml, sendAs, type MediaType } from './representation.js';
import { ApiErrorSchema, BOOLEAN_PARAMS, HeadersSchema, PagedResponseSchema, QuerySchema, type PagedResponse } from './schemas.js';

export const OPERATION_ID = 'StringDefinitions_GetDefinitions';

const inAllFormats = <T>(schema: T, description: string) => ({
  description,
  content: Object.fromEntries(['application/json', 'text/json', 'application/xml', 'text/xml'].map((t) => [t, { schema }])),
});

/** The rule a value broke, for Fastify's schema-validation errors on the query string. */
function validationMessage(error: FastifyError, query: Record<string, unknown>): AgcoError {
  const first = error.validation?.[0];
  const param = first?.instancePath.replace(/^\//, '').split('/')[0] ?? '';
  const raw = query[param];
  const shown = Array.isArray(raw) ? raw.join(',') : String(raw ?? '');
  if (param === 'limit') return badRequest(`limit must be a whole number of at least 1; "${shown}" is not.`, error.message);
  if ((BOOLEAN_PARAMS as readonly string[]).includes(param)) {
    return badRequest(`The value '${shown}' is not valid for ${param}; use true or false.`, error.message);
  }
  if (param) return badRequest(`The value '${shown}' is not valid for ${param}.`, error.message);
  return badRequest('The request is invalid.', error.message);
}

export async function stringDefinitionRoutes(app: FastifyInstance, opts: AreaPluginOptions): Promise<void> {
  const { store, config } = opts;
  const tokens = new Set(config.agcoTokens);

  // Fixture data only changes on a swap, so a rendered page stays right until then; clients poll the same queries.
  const pages = new LRUCache<string, string>({ max: 500, maxSize: 16 * 1024 * 1024, sizeCalculation: (body) => body.length || 1 });
  const forget = store.onSwap(() => pages.clear());
  app.addHook('onClose', async () => {
    forget();
  });
  const render = (filter: DefinitionFilter, type: MediaType): string => {
    const key = `${type} ${JSON.stringify(filter, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}`;
    let body = pages.get(key);
    if (body === undefined) {
      const page = findDefinitions(store, filter);
      const metadata = `{"TotalCount":${page.total},"Limit":${filter.limit},"Offset":0}`;
      const json = `{"Entities":[${page.entities.join(',')}],"Metadata":${metadata}}`;
      body = isXml(type) ? pagedResponseXml(JSON.parse(json) as PagedResponse) : json;
      pages.set(key, body);
    }
    return body;
  };

  app.addHook('onRequest', async (request, reply) => {
    const header = request.headers.authorization;
    const match = header === undefined ? null : /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
    if (!match) {
      const why = header === undefined ? 'No Authorization header was sent.' : 'The Authorization header is not of the form "Bearer <token>".';
      return sendApiError(request, reply, unauthorized(why));
    }
    if (tokens.size > 0 && !tokens.has(match[1]!)) {
      return sendApiError(request, reply, unauthorized('The bearer token is not valid.'));
    }
  });

  // ASP.NET binds True/FALSE as booleans; Ajv only coerces lower-case true/false.
  app.addHook('preValidation', async (request) => {
    const query = request.query as Record<string, unknown>;
    for (const name of BOOLEAN_PARAMS) {
      const value = query[name];
      if (typeof value === 'string') query[name] = value.trim().toLowerCase();
    }
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof AgcoError) return sendApiError(request, reply, error);
    if (error.validation) return sendApiError(request, reply, validationMessage(error, request.query as Record<string, unknown>));
    if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
      return sendApiError(request, reply, new AgcoError(error.statusCode, 'The request is invalid.', error.message));
    }
    request.log.error({ err: error }, 'agco request failed');
    return sendApiError(request, reply, new AgcoError(500, 'An error has occurred.', 'An error has occurred.'));
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    return sendApiError(request, reply, new AgcoError(404, `No HTTP resource was found that matches the request URI '${path}'.`, `No route ${request.method} ${path}.`));
  });

  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/api/v2/StringDefinitions',
    {
      schema: {
        operationId: OPERATION_ID,
        tags: ['agco'],
        security: [{ agcoBearer: [] }],
        summary: 'Get a paged response of Global String Definitions.',
        description:
          'Entities are ordered by Timestamp ascending (page on with modifiedAfterTimestamp=<last Timestamp>); with stringIds, in the order given. ' +
          'Requires Authorization: Bearer <token>. Answers JSON, text/json or XML by Accept.',
        querystring: QuerySchema,
        headers: HeadersSchema,
        response: {
          200: inAllFormats(PagedResponseSchema, 'OK'),
          400: inAllFormats(ApiErrorSchema, 'A rule of the parameters was broken (UserMessage names it)'),
          401: inAllFormats(ApiErrorSchema, 'Missing, malformed or unknown bearer token'),
        },
      },
    },
    async (request, reply) => {
      const type = mediaTypeOf(request);
      return sendAs(reply, type, 200, render(parseFilter(request.query), type));
    },
  );
}
