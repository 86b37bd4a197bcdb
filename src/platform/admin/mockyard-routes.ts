// mockyard's own routes: health and the fixture catalog.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { AreaDefinition } from '../area.js';
import { type AdminGuards, guardAdminScope } from './admin-guard.js';
import { storeFor } from '../../scenarios/registry.js';
import { MockyardErrorSchema, sendMockyardError } from '../http/mockyard-errors.js';

export interface MockyardRoutesOptions {
  areas: readonly AreaDefinition[];
  /** Health answers any Host; the catalog only the names admin routes answer (no token: it is read-only). */
  guards: AdminGuards;
}

const HealthSchema = Type.Object({
  status: Type.Literal('ok'),
  fixtures: Type.String({ description: 'Fingerprint of the fixture database being served' }),
  generation: Type.Integer({ description: 'Increases each time watch mode swaps in a rebuilt database' }),
});

/** mockyard's error body, with the readiness word a probe may also read. */
const UnavailableSchema = Type.Intersect([MockyardErrorSchema, Type.Object({ status: Type.Literal('starting') })]);

export async function mockyardRoutes(app: FastifyInstance, opts: MockyardRoutesOptions): Promise<void> {
  guardAdminScope(app, opts.guards, false);
  app.get(
    '/health',
    {
      schema: {
        operationId: 'mockyard_health',
        tags: ['mockyard'],
        summary: 'Readiness: 200 once the fixture database is open',
        response: { 200: HealthSchema, 503: UnavailableSchema },
      },
    },
    async (request, reply) => {
      const { store } = request;
      if (!store.db.open) {
        return sendMockyardError(reply, 503, 'The fixture database is not open yet.', { status: 'starting' });
      }
      return { status: 'ok' as const, fixtures: store.fingerprint, generation: store.generation };
    },
  );

  app.get(
    '/fixtures',
    {
      schema: {
        operationId: 'mockyard_fixtures',
        tags: ['mockyard'],
        summary: 'Identifiers, keys and tokens to try, per area',
        response: { 200: Type.Record(Type.String(), Type.Unknown()) },
      },
    },
    async (request) => {
      // One part per area and store, built from its data; in a scenario, the areas it names show its records.
      const entries = opts.areas.map((area) => {
        const store = storeFor(request, area.name);
        return [area.name, store.memo(`mockyard:catalog:${area.name}`, (s) => area.catalog(s, app.config))] as const;
      });
      return Object.fromEntries(entries);
    },
  );

  const ExampleSchema = Type.Object({
    title: Type.String(),
    method: Type.String(),
    path: Type.String({ description: "Below the area's base URL (e.g. /appcenter on the shared port)" }),
    headers: Type.Optional(Type.Record(Type.String(), Type.String())),
  });

  app.get(
    '/fixtures/examples',
    {
      schema: {
        operationId: 'mockyard_fixture_examples',
        tags: ['mockyard'],
        summary: 'Ready-to-send requests per area, built from the fixtures (or the scenario) being served',
        response: { 200: Type.Record(Type.String(), Type.Array(ExampleSchema)) },
      },
    },
    async (request) => {
      const entries = opts.areas.map((area) => {
        const store = storeFor(request, area.name);
        const examples = area.examples;
        return [
          area.name,
          examples ? store.memo(`mockyard:examples:${area.name}`, (s) => examples(s, app.config)) : [],
        ] as const;
      });
      return Object.fromEntries(entries);
    },
  );
}
