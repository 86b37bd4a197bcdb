// releases_list: auth and app lookup before the query parameters (as the gateway does), then one query.
import type { FastifyInstance } from 'fastify';
import { directoryRoutes } from './directory-routes.js';
import { AppCenterError } from './errors.js';
import { listReleasesJson, resolveAccess } from './queries.js';
import {
  GatewayErrorSchema,
  ReleasesHeadersSchema,
  ReleasesParamsSchema,
  ReleasesQuerySchema,
  ReleasesResponseSchema,
  type ReleasesParams,
  type ReleasesQuery,
} from './schemas.js';

const EXPECTED: Record<string, string> = {
  published_only: 'true or false',
  top: 'a whole number of at least 1',
  releaseId: 'a number',
};

function invalid(name: string, raw: unknown): AppCenterError {
  const shown = Array.isArray(raw) ? raw.join(',') : String(raw ?? '');
  return new AppCenterError(
    400,
    `The value '${shown}' is not valid for query parameter '${name}' (expected ${EXPECTED[name] ?? 'a single value'})`,
  );
}

type RawQuery = Record<string, string | string[] | undefined>;

/** One value of a parameter, or undefined when it is absent; a repeated parameter is not valid. */
function single(query: RawQuery, name: string): string | undefined {
  const raw = query[name];
  if (Array.isArray(raw)) throw invalid(name, raw);
  return raw;
}

const NUMBER = /^\s*-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;

function numberParam(
  query: RawQuery,
  name: string,
  check: (n: number) => boolean = Number.isFinite,
): number | undefined {
  const raw = single(query, name);
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!NUMBER.test(raw) || !check(n)) throw invalid(name, raw);
  return n;
}

/** The releases_list query as the gateway binds it (see ReleasesQuerySchema for what each means). */
export function parseReleasesQuery(query: RawQuery): ReleasesQuery {
  const out: ReleasesQuery = {};
  const published = single(query, 'published_only');
  if (published !== undefined) {
    if (published !== 'true' && published !== 'false') throw invalid('published_only', published);
    out.published_only = published === 'true';
  }
  const scope = single(query, 'scope');
  if (scope !== undefined) out.scope = scope;
  const top = numberParam(query, 'top', (n) => Number.isInteger(n) && n >= 1);
  if (top !== undefined) out.top = top;
  const releaseId = numberParam(query, 'releaseId');
  if (releaseId !== undefined) out.releaseId = releaseId;
  return out;
}

export async function appcenterRoutes(app: FastifyInstance): Promise<void> {
  await directoryRoutes(app);
  app.get(
    '/v0.1/apps/:owner_name/:app_name/releases',
    {
      schema: {
        operationId: 'releases_list',
        tags: ['appcenter'],
        security: [{ APIToken: [] }],
        summary: "Basic information about an app's releases.",
        description:
          'Newest first (uploaded_at, then id). Needs X-API-Token; the app must be owned by the caller, by an organization the caller belongs to, or have a live distribution group the caller is in.',
        params: ReleasesParamsSchema,
        querystring: ReleasesQuerySchema,
        headers: ReleasesHeadersSchema,
        response: {
          200: ReleasesResponseSchema,
          400: GatewayErrorSchema,
          401: GatewayErrorSchema,
          404: GatewayErrorSchema,
        },
      },
    },
    async (request, reply) => {
      const { store } = request;
      // A bad token or unknown app wins over a bad query parameter, as upstream.
      const header = request.headers['x-api-token'];
      const token = Array.isArray(header) ? header[0] : header;
      const { owner_name, app_name } = request.params as ReleasesParams;
      const caller = resolveAccess(store, token, owner_name, app_name);
      if (caller.kind === 'unauthorized') throw new AppCenterError(401);
      if (caller.kind === 'not-found') throw new AppCenterError(404);
      const { published_only, scope, top, releaseId } = parseReleasesQuery(request.query as RawQuery);
      const json = listReleasesJson(store, {
        appId: caller.appId,
        publishedOnly: published_only === true,
        testerUserId: scope === 'tester' ? caller.userId : null,
        releaseId: releaseId ?? null,
        top: top ?? null,
      });
      // Items were serialised against the response schema when the fixtures were built.
      return reply.type('application/json; charset=utf-8').send(json);
    },
  );
}
