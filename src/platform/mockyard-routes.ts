// mockyard's own routes: health and the fixture catalog.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { AreaDefinition } from '../areas/types.js';
import type { Config } from '../config.js';
import type { FixtureStore } from './fixture-store.js';

export interface MockyardRoutesOptions {
  areas: readonly AreaDefinition[];
  store: FixtureStore;
  config: Config;
}

const HealthSchema = Type.Object({
  status: Type.Literal('ok'),
  fixtures: Type.String({ description: 'Fingerprint of the fixture database being served' }),
  generation: Type.Integer({ description: 'Increases each time watch mode swaps in a rebuilt database' }),
});

const UnavailableSchema = Type.Object({ status: Type.Literal('starting'), message: Type.String() });

export async function mockyardRoutes(app: FastifyInstance, opts: MockyardRoutesOptions): Promise<void> {
  let catalog: { generation: number; value: Record<string, unknown> } | undefined;
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
    async (_request, reply) => {
      if (!opts.store.db.open) {
        return reply.code(503).send({ status: 'starting', message: 'fixture database is not open' });
      }
      return { status: 'ok' as const, fixtures: opts.store.fingerprint, generation: opts.store.generation };
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
    async () => {
      // One answer per database generation; the areas build their parts from the store each time.
      if (catalog?.generation !== opts.store.generation) {
        catalog = { generation: opts.store.generation, value: Object.fromEntries(opts.areas.map((area) => [area.name, area.catalog(opts.store, opts.config)])) };
      }
      return catalog.value;
    },
  );
}
