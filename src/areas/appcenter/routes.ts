// releases_list: auth and app lookup before validation (as the gateway does), then one query.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AreaPluginOptions } from '../types.js';
import { AppCenterError, sendError } from './errors.js';
import { listReleasesJson, resolveAccess } from './queries.js';
import {
  GatewayErrorSchema,
  ReleasesHeadersSchema,
  ReleasesParamsSchema,
  ReleasesQuerySchema,
  ReleasesResponseSchema,
  type ReleasesParams,
} from './schemas.js';

const EXPECTED: Record<string, string> = {
  published_only: 'true or false',
  top: 'a whole number of at least 1',
  releaseId: 'a number',
};

function invalid(name: string, raw: unknown): AppCenterError {
  const shown = Array.isArray(raw) ? raw.join(',') : String(raw ?? '');
  return new AppCenterError(400, `The value '${shown}' is not valid for query parameter '${name}' (expected ${EXPECTED[name] ?? 'a single value'})`);
}

/** Turns a schema-validation error into App Center's 400 naming the offending parameter. */
function fromValidation(error: FastifyError, request: FastifyRequest): AppCenterError {
  const first = error.validation?.[0];
  const name = first?.instancePath.replace(/^\//, '').split('/')[0] || String(first?.params?.missingProperty ?? 'request');
  const raw = (request.query as Record<string, unknown> | undefined)?.[name];
  return invalid(name, raw);
}

export async function appcenterRoutes(app: FastifyInstance, opts: AreaPluginOptions): Promise<void> {
  const { store } = opts;
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  const access = new WeakMap<FastifyRequest, { userId: number; appId: number }>();

  typed.setNotFoundHandler((_request, reply) => sendError(reply, 404));
  typed.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof AppCenterError) return sendError(reply, error.statusCode, error.detail);
    if (error.validation) {
      const e = fromValidation(error, request);
      return sendError(reply, 400, e.detail);
    }
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) return sendError(reply, error.statusCode, error.message);
    request.log.error({ err: error }, 'appcenter request failed');
    return sendError(reply, 500);
  });

  typed.get(
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
        response: { 200: ReleasesResponseSchema, 400: GatewayErrorSchema, 401: GatewayErrorSchema, 404: GatewayErrorSchema },
      },
      // Before validation, so a bad token or unknown app wins over a bad query parameter, as upstream.
      preValidation: async (request) => {
        const header = request.headers['x-api-token'];
        const token = Array.isArray(header) ? header[0] : header;
        const { owner_name, app_name } = request.params as ReleasesParams;
        const found = resolveAccess(store, token, owner_name, app_name);
        if (found.kind === 'unauthorized') throw new AppCenterError(401);
        if (found.kind === 'not-found') throw new AppCenterError(404);
        access.set(request, found);
      },
    },
    async (request, reply) => {
      const { published_only, scope, top, releaseId } = request.query;
      if (top !== undefined && !(Number.isInteger(top) && top >= 1)) throw invalid('top', top);
      const caller = access.get(request)!;
      const json = listReleasesJson(store, {
        appId: caller.appId,
        publishedOnly: published_only === true,
        testerUserId: scope === 'tester' ? caller.userId : null,
        releaseId: releaseId ?? null,
        top: top ?? null,
      });
      // Items were serialised against the response schema when the fixtures were built.
      return (reply as FastifyReply).type('application/json; charset=utf-8').send(json);
    },
  );
}
