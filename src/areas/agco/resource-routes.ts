// The ATS operations around StringDefinitions_GetDefinitions: one definition, the languages, and sign-in
// (operation names from the AGCO ATS OpenAPI document, APIs-guru/openapi-directory APIs/agco-ats.com/v1).
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AreaPluginOptions } from '../../platform/area.js';
import { storeCredentials } from '../../scenarios/credentials.js';
import { AgcoError, badRequest } from './errors.js';
import { bindQuery, parseFilter } from './filters.js';
import { definitionsBody } from './queries.js';
import { ApiErrorSchema } from './schemas.js';

const JSON_TYPE = 'application/json; charset=utf-8';
/** Routes with this config are answered without a bearer token (sign-in and the liveness check). */
export const PUBLIC_ROUTE = { agcoPublic: true };
const EXAMPLE_TOKEN = 'mockyard-agco-token';
const AnyObject = Type.Object({}, { additionalProperties: true });

const sendJson = (reply: FastifyReply, body: unknown) => reply.type(JSON_TYPE).send(JSON.stringify(body));
const notFound = (what: string) => new AgcoError(404, `${what} was not found.`);

interface LanguageRow {
  LocaleId: number;
  Description: string;
  IsDeleted: number;
}
const language = (r: LanguageRow) => ({
  LocaleId: r.LocaleId,
  Description: r.Description,
  IsDeleted: r.IsDeleted === 1,
});

function int(raw: string | undefined, name: string, fallback: number, min: number): number {
  if (raw === undefined || raw === '') return fallback;
  if (!/^\s*\+?\d{1,10}\s*$/.test(raw) || Number(raw) < min || Number(raw) > 2147483647)
    throw badRequest(`${name} must be a whole number of at least ${min}; "${raw}" is not.`);
  return Number(raw);
}

/** ASP.NET binds query names without regard to case. */
function param(request: FastifyRequest, name: string): string | undefined {
  for (const [k, v] of Object.entries(request.query as Record<string, string | string[]>))
    if (k.toLowerCase() === name.toLowerCase()) return Array.isArray(v) ? v[0] : v;
  return undefined;
}

function field(body: unknown, name: string): unknown {
  if (body === null || typeof body !== 'object') return undefined;
  const key = Object.keys(body).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : (body as Record<string, unknown>)[key];
}

const security = [{ agcoBearer: [] }];
const errors = { 400: ApiErrorSchema, 401: ApiErrorSchema, 404: ApiErrorSchema };

export async function resourceRoutes(app: FastifyInstance, opts: AreaPluginOptions): Promise<void> {
  definitionRoute(app, opts);
  languageRoutes(app);
  authenticationRoutes(app, opts);
}

/** StringDefinitions_GetDefinition: the list operation's filter, narrowed to one id. */
function definitionRoute(app: FastifyInstance, opts: AreaPluginOptions): void {
  app.get(
    '/api/v2/StringDefinitions/:ID',
    {
      schema: {
        operationId: 'StringDefinitions_GetDefinition',
        tags: ['agco'],
        security,
        summary: 'One Global String Definition by its id.',
        params: Type.Object({ ID: Type.String() }),
        querystring: Type.Object({
          includeTranslations: Type.Optional(Type.Boolean()),
          includeDeletedLanguages: Type.Optional(Type.Boolean()),
          languageIds: Type.Optional(Type.String()),
        }),
        response: { 200: AnyObject, ...errors },
      },
    },
    async (request, reply) => {
      const id = (request.params as { ID: string }).ID;
      if (id.includes(',') || id.trim() === '') throw notFound(`StringDefinition ${id}`);
      const query = { ...(request.query as Record<string, string>) };
      for (const k of Object.keys(query))
        if (!/^(includetranslations|includedeletedlanguages|languageids)$/i.test(k)) delete query[k];
      const filter = parseFilter(bindQuery({ ...query, stringIds: id }));
      const entity = await definitionsBody(app.queryPool, request.store, opts.config, { filter, rendering: 'entity' });
      if (entity === null) throw notFound(`StringDefinition ${id}`);
      return reply.type(JSON_TYPE).send(Buffer.concat(entity));
    },
  );
}

/** Languages_GetLanguages and Languages_GetLanguage. */
function languageRoutes(app: FastifyInstance): void {
  app.get(
    '/api/v2/Languages',
    {
      schema: {
        operationId: 'Languages_GetLanguages',
        tags: ['agco'],
        security,
        summary: 'The languages translations are kept in, by LocaleId (paged: limit 10, offset 0).',
        querystring: Type.Object({
          limit: Type.Optional(Type.Integer({ minimum: 1, default: 10 })),
          offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
          includeDeleted: Type.Optional(Type.Boolean({ default: false })),
        }),
        response: { 200: AnyObject, ...errors },
      },
    },
    async (request, reply) => {
      const limit = int(param(request, 'limit'), 'limit', 10, 1);
      const offset = int(param(request, 'offset'), 'offset', 0, 0);
      const deleted = (param(request, 'includeDeleted') ?? 'false').trim().toLowerCase();
      if (deleted !== 'true' && deleted !== 'false') throw badRequest('includeDeleted must be true or false.');
      const where = deleted === 'true' ? '' : 'WHERE is_deleted = 0';
      const rows = request.store
        .prepare(
          `SELECT locale_id AS LocaleId, description AS Description, is_deleted AS IsDeleted FROM agco_languages ${where} ORDER BY locale_id`,
        )
        .all() as LanguageRow[];
      return sendJson(reply, {
        Entities: rows.slice(offset, offset + limit).map(language),
        Metadata: { TotalCount: rows.length, Limit: limit, Offset: offset },
      });
    },
  );

  app.get(
    '/api/v2/Languages/:LocaleID',
    {
      schema: {
        operationId: 'Languages_GetLanguage',
        tags: ['agco'],
        security,
        summary: 'One language by its LocaleId (deleted languages too, with IsDeleted true).',
        params: Type.Object({ LocaleID: Type.String() }),
        response: { 200: AnyObject, ...errors },
      },
    },
    async (request, reply) => {
      const raw = (request.params as { LocaleID: string }).LocaleID;
      const row = /^\d{1,9}$/.test(raw)
        ? (request.store
            .prepare(
              'SELECT locale_id AS LocaleId, description AS Description, is_deleted AS IsDeleted FROM agco_languages WHERE locale_id = ?',
            )
            .get(Number(raw)) as LanguageRow | undefined)
        : undefined;
      if (!row) throw notFound(`Language ${raw}`);
      return sendJson(reply, language(row));
    },
  );
}

/** Authentication_Default (sign-in) and Authentication_IsAlive: both answered without a token. */
function authenticationRoutes(app: FastifyInstance, opts: AreaPluginOptions): void {
  app.post(
    '/api/v2/Authentication',
    {
      schema: {
        operationId: 'Authentication_Default',
        tags: ['agco'],
        summary: 'Sign in: Username and Password give the bearer token to send as Authorization: Bearer <Token>.',
        body: Type.Object({ Username: Type.String(), Password: Type.String() }, { additionalProperties: true }),
        response: { 200: AnyObject, 400: ApiErrorSchema },
      },
      config: PUBLIC_ROUTE,
    },
    async (request, reply) => {
      const username = field(request.body, 'Username');
      const password = field(request.body, 'Password');
      if (typeof username !== 'string' || username.trim() === '' || typeof password !== 'string' || password === '')
        throw badRequest('Username and Password are required.');
      // Every user signs in; the token given is one the API accepts (a configured or scenario token when set).
      const accepted = storeCredentials(request.store, 'agco') ?? new Set(opts.config.agcoTokens);
      const token = [...accepted][0] ?? EXAMPLE_TOKEN;
      const userId = createHash('sha1').update(username.toLowerCase()).digest().readUInt32BE(0) % 100_000;
      return sendJson(reply, {
        Email: username.includes('@') ? username : `${username}@agco-ats.example`,
        Name: username,
        Token: token,
        UserID: userId,
        Username: username,
      });
    },
  );

  app.get(
    '/api/v2/Authentication/IsAlive',
    {
      schema: {
        operationId: 'Authentication_IsAlive',
        tags: ['agco'],
        summary: 'Acknowledges the connection to the API (204, no token needed).',
        response: { 204: Type.Null() },
      },
      config: PUBLIC_ROUTE,
    },
    async (_request, reply) => reply.code(204).send(),
  );
}
