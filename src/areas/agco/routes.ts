// GET /api/v2/StringDefinitions: schema, auth, thin handler. Errors are thrown as AgcoError; the area's formatError writes them.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FixtureStore } from '../../platform/data/fixture-store.js';
import { storeCredentials } from '../../scenarios/credentials.js';
import type { AreaPluginOptions } from '../../platform/area.js';
import { searchBusy, unauthorized } from './errors.js';
import { bindQuery, parseFilter, type DefinitionFilter } from './filters.js';
import { definitionsBody } from './queries.js';
import { isXml, mediaTypeOf, sendAs, type MediaType } from './representation.js';
import { ApiErrorSchema, HeadersSchema, PagedResponseSchema, QuerySchema } from './schemas.js';
import { PUBLIC_ROUTE, resourceRoutes } from './resource-routes.js';

export const OPERATION_ID = 'StringDefinitions_GetDefinitions';

/** A path segment that matches `word` in any letter case (a find-my-way regex parameter named `name`). */
const ignoreCase = (name: string, word: string): string =>
  `:${name}(${[...word].map((c) => (c.toLowerCase() === c.toUpperCase() ? c : `[${c.toLowerCase()}${c.toUpperCase()}]`)).join('')})`;

const inAllFormats = <T>(schema: T, description: string) => ({
  description,
  content: Object.fromEntries(
    ['application/json', 'text/json', 'application/xml', 'text/xml'].map((t) => [t, { schema }]),
  ),
});

export async function stringDefinitionRoutes(app: FastifyInstance, opts: AreaPluginOptions): Promise<void> {
  const tokens = new Set(opts.config.agcoTokens);

  // Repeated requests are answered by the platform's answer cache (the area declares Authorization and Accept).
  const render = async (store: FixtureStore, filter: DefinitionFilter, type: MediaType): Promise<Uint8Array[]> =>
    (await definitionsBody(app.queryPool, store, opts.config, { filter, rendering: isXml(type) ? 'xml' : 'json' }))!;

  // The bearer token, checked before the parameters as the real gateway does, on every route but the public ones.
  app.addHook('onRequest', async (request) => {
    if ((request.routeOptions.config as { agcoPublic?: boolean }).agcoPublic === PUBLIC_ROUTE.agcoPublic) return;
    const header = request.headers.authorization;
    const match = header === undefined ? null : /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
    if (!match) {
      const why =
        header === undefined
          ? 'No Authorization header was sent.'
          : 'The Authorization header is not of the form "Bearer <token>".';
      throw unauthorized(why);
    }
    // A scenario that lists its own tokens accepts only those.
    const accepted = storeCredentials(request.store, 'agco') ?? (tokens.size > 0 ? tokens : null);
    if (accepted && !accepted.has(match[1]!)) throw unauthorized('The bearer token is not valid.');
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
    const filter = parseFilter(bindQuery(request.query as Record<string, string | string[]>));
    const body = await render(request.store, filter, type);
    // A page has no size limit (limit is any int32): its bytes count against the answers held for clients.
    const bytes = body.reduce((n, part) => n + part.byteLength, 0);
    if (!app.runtime.answersInFlight.hold(reply, bytes)) throw searchBusy(app.runtime.answersInFlight.refusal(bytes));
    return sendAs(reply, type, 200, body);
  };
  await resourceRoutes(app, opts);
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  typed.get('/api/v2/StringDefinitions', options(false), handler);
  // ASP.NET Web API routes ignore letter case: /api/v2/stringdefinitions is the same operation (hidden from the docs).
  typed.get(
    `/${ignoreCase('ci0', 'api')}/${ignoreCase('ci1', 'v2')}/${ignoreCase('ci2', 'StringDefinitions')}`,
    options(true),
    handler,
  );
}
