// GET /api/v2/StringDefinitions: schema, auth, thin handler, and the area's own 404 and error handling.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FixtureStore } from '../../platform/fixture-store.js';
import { storeCredentials } from '../../platform/credentials.js';
import type { AreaPluginOptions } from '../types.js';
import { sendApiError, unauthorized } from './errors.js';
import { bindQuery, parseFilter, type DefinitionFilter } from './filters.js';
import { findDefinitionObjects, findDefinitions } from './queries.js';
import { isXml, mediaTypeOf, pagedResponseXml, sendAs, type MediaType } from './representation.js';
import { ApiErrorSchema, HeadersSchema, PagedResponseSchema, QuerySchema } from './schemas.js';

export const OPERATION_ID = 'StringDefinitions_GetDefinitions';

const inAllFormats = <T>(schema: T, description: string) => ({
  description,
  content: Object.fromEntries(['application/json', 'text/json', 'application/xml', 'text/xml'].map((t) => [t, { schema }])),
});

export async function stringDefinitionRoutes(app: FastifyInstance, opts: AreaPluginOptions): Promise<void> {
  const tokens = new Set(opts.config.agcoTokens);

  const render = (store: FixtureStore, filter: DefinitionFilter, type: MediaType): string => {
    // Fixture data is read-only, so a rendered page stays right as long as its store; clients poll the same queries.
    const pages = store.lru<string>('agco:pages', () => ({ max: 500, maxSize: 16 * 1024 * 1024, sizeCalculation: (body) => body.length || 1 }));
    const key = `${type} ${JSON.stringify(filter, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}`;
    let body = pages.get(key);
    if (body === undefined) {
      if (isXml(type)) {
        const page = findDefinitionObjects(store, filter);
        const metadata = { TotalCount: page.total, Limit: filter.limit, Offset: 0 };
        body = pagedResponseXml({ Entities: page.entities, Metadata: metadata });
      } else {
        const page = findDefinitions(store, filter);
        const metadata = `{"TotalCount":${page.total},"Limit":${filter.limit},"Offset":0}`;
        body = `{"Entities":[${page.entities.join(',')}],"Metadata":${metadata}}`;
      }
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
    // A scenario that lists its own tokens accepts only those.
    const accepted = storeCredentials(request.store, 'agco') ?? (tokens.size > 0 ? tokens : null);
    if (accepted && !accepted.has(match[1]!)) {
      return sendApiError(request, reply, unauthorized('The bearer token is not valid.'));
    }
  });

  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/api/v2/StringDefinitions',
    {
      schema: {
        operationId: OPERATION_ID,
        tags: ['agco'],
        security: [{ oauth2: [] }],
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
      return sendAs(reply, type, 200, render(request.store, parseFilter(bindQuery(request.query as Record<string, string | string[]>)), type));
    },
  );
}
