// Admin routes under /__mockyard: the request journal and reset. Off with --admin off; behind a bearer token with --admin-token.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { sendJsonList } from '../http/json-stream.js';
import type { AreaDefinition } from '../area.js';
import type { JournalFilter } from '../controls/journal.js';
import { scenarioRoutes } from '../../scenarios/routes.js';
import { type DashboardStubs, dashboardApi } from '../dashboard/api.js';
import { MockyardErrorSchema } from '../http/mockyard-errors.js';
import { type AdminGuards, guardAdminScope } from './admin-guard.js';
import { JournalEntrySchema } from './journal-schema.js';

export interface AdminRoutesOptions {
  areas: readonly AreaDefinition[];
  /** The host and token checks every admin route family shares (one token lockout for all). */
  guards: AdminGuards;
  /** The stubs, as the dashboard asks about them. */
  stubs?: DashboardStubs;
}

function filterSchema(areas: readonly AreaDefinition[], withLimit: boolean) {
  return Type.Object({
    area: Type.Optional(Type.Union(areas.map((a) => Type.Literal(a.name)))),
    operation: Type.Optional(Type.String({ description: 'operationId, e.g. dkan_datastore_query' })),
    status: Type.Optional(
      Type.String({ pattern: '^[1-5](\\d\\d|xx)$', description: 'An exact status (404) or a class (4xx)' }),
    ),
    since: Type.Optional(
      Type.String({ format: 'date-time', description: 'Only requests that arrived at or after this ISO time' }),
    ),
    until: Type.Optional(
      Type.String({ format: 'date-time', description: 'Only requests that arrived at or before this ISO time' }),
    ),
    scenario: Type.Optional(Type.String({ description: 'Only requests made in this scenario' })),
    ...(withLimit
      ? {
          limit: Type.Optional(
            Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'At most this many, newest first' }),
          ),
        }
      : {}),
  });
}

type Security = { mockyardAdmin: never[] }[] | undefined;
const unauthorized = { 401: MockyardErrorSchema };

export async function adminRoutes(root: FastifyInstance, opts: AdminRoutesOptions): Promise<void> {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const security: Security = root.config.adminToken !== null ? [{ mockyardAdmin: [] }] : undefined;

  guardAdminScope(app, opts.guards);
  journalRoutes(root, opts.areas, security);
  resetRoute(root, security);
  // Inside this plugin, so the admin switch and token apply to them too.
  await app.register(scenarioRoutes, { security });
  await app.register(dashboardApi, { areas: opts.areas, security, stubs: opts.stubs });
}

/** mockyard_requests_list, mockyard_requests_count and mockyard_requests_clear: the request journal. */
function journalRoutes(root: FastifyInstance, areas: readonly AreaDefinition[], security: Security): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const { runtime, config } = root;
  app.get(
    '/requests',
    {
      schema: {
        operationId: 'mockyard_requests_list',
        tags: ['mockyard'],
        summary: 'Recent area requests, newest first',
        description: `The journal keeps the last ${config.journalSize} area requests (--journal-size).`,
        querystring: filterSchema(areas, true),
        security,
        response: {
          200: Type.Object({
            total: Type.Integer({ description: 'Entries matching the filters' }),
            count: Type.Integer({ description: 'Entries returned (at most limit)' }),
            requests: Type.Array(JournalEntrySchema),
          }),
          ...unauthorized,
        },
      },
    },
    async (request, reply) => {
      const { total, count, entries } = runtime.journal.listing(request.query as JournalFilter);
      // Written an entry at a time.
      return sendJsonList(reply, `{"total":${total},"count":${count},"requests":[`, entries, ']}');
    },
  );

  app.get(
    '/requests/count',
    {
      schema: {
        operationId: 'mockyard_requests_count',
        tags: ['mockyard'],
        summary: 'How many journaled area requests match the filters',
        querystring: filterSchema(areas, false),
        security,
        response: { 200: Type.Object({ count: Type.Integer() }), ...unauthorized },
      },
    },
    async (request) => ({ count: runtime.journal.count(request.query as JournalFilter) }),
  );

  app.delete(
    '/requests',
    {
      schema: {
        operationId: 'mockyard_requests_clear',
        tags: ['mockyard'],
        summary: 'Empty the request journal',
        security,
        response: { 200: Type.Object({ cleared: Type.Integer({ description: 'Entries removed' }) }), ...unauthorized },
      },
    },
    async () => ({ cleared: runtime.journal.clear() }),
  );
}

/** mockyard_reset: every runtime state back to the start. */
function resetRoute(root: FastifyInstance, security: Security): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const { runtime } = root;
  app.post(
    '/reset',
    {
      schema: {
        operationId: 'mockyard_reset',
        tags: ['mockyard'],
        summary: "Forget all runtime state: journal, seeded fault draws, areas' counters (e.g. rate limits), scenarios",
        security,
        response: {
          200: Type.Object({ status: Type.Literal('reset'), journalCleared: Type.Integer() }),
          ...unauthorized,
        },
      },
    },
    async () => ({ status: 'reset' as const, ...runtime.reset() }),
  );
}
