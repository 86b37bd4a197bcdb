// GET /api/v2/StringDefinitions: schema, auth, thin handler, and the area's own 404 and error handling.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FixtureStore } from '../../platform/data/fixture-store.js';
import { storeCredentials } from '../../scenarios/credentials.js';
import type { AreaPluginOptions } from '../../platform/area.js';
import { searchBusy, searchTooLong, sendApiError, unauthorized } from './errors.js';
import { bindQuery, parseFilter, type DefinitionFilter } from './filters.js';
import { findDefinitionObjects, findDefinitions, type Run } from './queries.js';
import { WorkBudgetError } from '../../platform/data/query-pool.js';
import { isXml, mediaTypeOf, pagedResponseXmlInSlices, sendAs, type MediaType } from './representation.js';
import { ApiErrorSchema, HeadersSchema, PagedResponseSchema, QuerySchema } from './schemas.js';

export const OPERATION_ID = 'StringDefinitions_GetDefinitions';

let segment = 0;
/** A path segment that matches `word` in any letter case (a find-my-way regex parameter). */
const ignoreCase = (word: string): string =>
  `:ci${segment++}(${[...word].map((c) => (c.toLowerCase() === c.toUpperCase() ? c : `[${c.toLowerCase()}${c.toUpperCase()}]`)).join('')})`;

const inAllFormats = <T>(schema: T, description: string) => ({
  description,
  content: Object.fromEntries(
    ['application/json', 'text/json', 'application/xml', 'text/xml'].map((t) => [t, { schema }]),
  ),
});

export async function stringDefinitionRoutes(app: FastifyInstance, opts: AreaPluginOptions): Promise<void> {
  const tokens = new Set(opts.config.agcoTokens);

  const render = async (store: FixtureStore, filter: DefinitionFilter, type: MediaType): Promise<string> => {
    // Fixture data is read-only, so a rendered page stays right as long as its store; clients poll the same queries.
    const pages = store.lru<string>('agco:pages', () => ({
      max: 500,
      maxSize: 16 * 1024 * 1024,
      sizeCalculation: (body) => body.length || 1,
    }));
    const key = `${type} ${JSON.stringify(filter, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}`;
    let body = pages.get(key);
    if (body === undefined) {
      // Every statement of a page runs on the query executor under the work budget (text searches scan).
      const run: Run = async (steps) => {
        try {
          return await app.queryPool.run(store, steps, opts.config.queryTimeout);
        } catch (err) {
          if (err instanceof WorkBudgetError)
            throw err.started ? searchTooLong(err.budgetMs) : searchBusy(err.budgetMs);
          throw err;
        }
      };
      if (isXml(type)) {
        const page = await findDefinitionObjects(store, run, filter);
        const metadata = { TotalCount: page.total, Limit: filter.limit, Offset: 0 };
        body = await pagedResponseXmlInSlices({ Entities: page.entities, Metadata: metadata });
      } else {
        const page = await findDefinitions(store, run, filter);
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
      const why =
        header === undefined
          ? 'No Authorization header was sent.'
          : 'The Authorization header is not of the form "Bearer <token>".';
      return sendApiError(request, reply, unauthorized(why));
    }
    // A scenario that lists its own tokens accepts only those.
    const accepted = storeCredentials(request.store, 'agco') ?? (tokens.size > 0 ? tokens : null);
    if (accepted && !accepted.has(match[1]!)) {
      return sendApiError(request, reply, unauthorized('The bearer token is not valid.'));
    }
  });

  const options = (hide: boolean) => ({
    schema: {
      operationId: OPERATION_ID,
      tags: ['agco'],
      security: [{ agcoBearer: [] }],
      summary: 'Get a paged response of Global String Definitions.',
      description:
        'Entities are ordered by Timestamp ascending (page on with modifiedAfterTimestamp=<last Timestamp>); with stringIds, in the order given. ' +
        'Requires Authorization: Bearer <token>. Answers JSON, text/json or XML by Accept. The path and parameter names ignore letter case.',
      querystring: QuerySchema,
      headers: HeadersSchema,
      response: {
        200: inAllFormats(PagedResponseSchema, 'OK'),
        400: inAllFormats(ApiErrorSchema, 'A rule of the parameters was broken (UserMessage names it)'),
        401: inAllFormats(ApiErrorSchema, 'Missing, malformed or unknown bearer token'),
      },
      ...(hide ? { hide: true } : {}),
    },
  });
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const type = mediaTypeOf(request);
    return sendAs(
      reply,
      type,
      200,
      await render(request.store, parseFilter(bindQuery(request.query as Record<string, string | string[]>)), type),
    );
  };
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  typed.get('/api/v2/StringDefinitions', options(false), handler);
  // ASP.NET Web API routes ignore letter case: /api/v2/stringdefinitions is the same operation (hidden from the docs).
  typed.get(`/${ignoreCase('api')}/${ignoreCase('v2')}/${ignoreCase('StringDefinitions')}`, options(true), handler);
}
