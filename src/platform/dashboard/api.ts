// The admin data the dashboard reads and sets: one journal entry and the stubs nearest to it, traffic
// per area, and the per-area controls. Registered inside the admin routes, so the admin switch, token and
// browser policy apply exactly as to every other admin route.
import { MockyardErrorSchema, sendMockyardError } from '../http/mockyard-errors.js';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type Static } from 'typebox';
import type { AreaDefinition, AreaName } from '../area.js';
import { FAULT_KINDS, MAX_DELAY_MS } from '../controls/prefer.js';
import { liveRoute } from './live.js';
import { JournalEntrySchema } from '../admin/journal-schema.js';
import type { JournalRecord } from '../controls/journal.js';

const LatencySchema = Type.Union([
  Type.Null(),
  Type.Tuple([
    Type.Integer({ minimum: 0, maximum: MAX_DELAY_MS }),
    Type.Integer({ minimum: 0, maximum: MAX_DELAY_MS }),
  ]),
]);
const FaultSchema = Type.Union(
  [Type.Null(), Type.Literal('reset'), Type.Literal('empty'), Type.Literal('malformed'), Type.Literal('slow')],
  { description: `A fault on every request of the area, as Prefer: fault= (${FAULT_KINDS.join(', ')})` },
);

const ControlsBodySchema = Type.Object(
  {
    latency: LatencySchema,
    errorRate: Type.Number({ minimum: 0, maximum: 100, description: 'Percent of requests answered with an error' }),
    fault: FaultSchema,
  },
  { additionalProperties: false },
);
type ControlsBody = Static<typeof ControlsBodySchema>;

const AreaControlsSchema = Type.Object({
  latency: LatencySchema,
  errorRate: Type.Number(),
  fault: FaultSchema,
  overridden: Type.Boolean({ description: 'Set at run time; false means the server-wide flags apply' }),
});

const BucketSchema = Type.Object({
  start: Type.Integer(),
  requests: Type.Integer(),
  errors: Type.Integer({ description: '5xx answers and dropped connections' }),
  clientErrors: Type.Integer({ description: '4xx answers' }),
});

const NearMissesSchema = Type.Object({
  nearMisses: Type.Array(
    Type.Object({
      stubMapping: Type.Record(Type.String(), Type.Unknown(), {
        description: 'The mapping, as /__admin/mappings lists it',
      }),
      matchResult: Type.Object({ distance: Type.Number({ description: '0 is a match, 1 nothing alike' }) }),
      misses: Type.Array(Type.String(), { description: 'The parts of the request the mapping did not match' }),
    }),
  ),
});
export type NearMisses = Static<typeof NearMissesSchema>;

/** What the dashboard asks of the stubs (src/stubs); app.ts wires it, so the platform does not import them. */
export interface DashboardStubs {
  /** The stubs nearest to a journaled request, as WireMock's near misses (nearest first). */
  /** Scans every mapping, a time slice at a time. */
  nearMisses(record: JournalRecord): Promise<NearMisses['nearMisses']>;
}

export interface DashboardApiOptions {
  areas: readonly AreaDefinition[];
  security: { mockyardAdmin: never[] }[] | undefined;
  stubs?: DashboardStubs;
}

const unauthorized = { 401: MockyardErrorSchema };

export async function dashboardApi(root: FastifyInstance, opts: DashboardApiOptions): Promise<void> {
  const names = opts.areas.map((a) => a.name);
  liveRoute(root);
  requestRoutes(root, opts);
  trafficRoute(root, opts.security, names);
  controlsRoutes(root, opts.security, names);
}

const notHeld = (reply: FastifyReply, id: number, size: number) =>
  sendMockyardError(reply, 404, `The journal holds no request ${id} (it keeps the last ${size})`);

function requestRoutes(root: FastifyInstance, opts: DashboardApiOptions): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const { runtime, config } = root;
  const { security } = opts;
  const params = Type.Object({ id: Type.Integer({ minimum: 1 }) });

  app.get(
    '/requests/:id',
    {
      schema: {
        operationId: 'mockyard_request_get',
        tags: ['mockyard'],
        summary: 'One journaled request, while the journal still holds it',
        params,
        security,
        response: { 200: JournalEntrySchema, 404: MockyardErrorSchema, ...unauthorized },
      },
    },
    async (request, reply) =>
      runtime.journal.get(request.params.id) ?? notHeld(reply, request.params.id, config.journalSize),
  );

  app.get(
    '/requests/:id/near-misses',
    {
      schema: {
        operationId: 'mockyard_request_near_misses',
        tags: ['mockyard'],
        summary: 'The stub mappings nearest to one journaled request, and what each did not match',
        description:
          "WireMock's near misses (GET /__admin/requests/unmatched/near-misses) for one request, whether or not a " +
          'stub answered it: the three nearest mappings, nearest first. Empty when no mappings are loaded.',
        params,
        security,
        response: { 200: NearMissesSchema, 404: MockyardErrorSchema, ...unauthorized },
      },
    },
    async (request, reply) => {
      const record = runtime.journal.record(request.params.id);
      if (!record) return notHeld(reply, request.params.id, config.journalSize);
      return { nearMisses: (await opts.stubs?.nearMisses(record)) ?? [] };
    },
  );
}

function trafficRoute(root: FastifyInstance, security: DashboardApiOptions['security'], names: AreaName[]): void {
  root.withTypeProvider<TypeBoxTypeProvider>().get(
    '/traffic',
    {
      schema: {
        operationId: 'mockyard_traffic',
        tags: ['mockyard'],
        summary: 'Requests and errors per area in 10-second buckets over the last 5 minutes',
        security,
        response: {
          200: Type.Object({ bucketMs: Type.Integer(), areas: Type.Record(Type.String(), Type.Array(BucketSchema)) }),
          ...unauthorized,
        },
      },
    },
    async () => root.runtime.traffic.snapshot(names),
  );
}

const ControlsSchema = Type.Object({
  serverWide: Type.Object({ latency: LatencySchema, errorRate: Type.Number() }),
  areas: Type.Record(Type.String(), AreaControlsSchema),
});

function controlsOf(root: FastifyInstance, names: AreaName[]): Static<typeof ControlsSchema> {
  const { runtime, config } = root;
  return {
    serverWide: {
      latency: config.latency ? ([...config.latency] as [number, number]) : null,
      errorRate: config.errorRate,
    },
    areas: Object.fromEntries(
      names.map((name) => {
        const c = runtime.controls.for(name);
        const latency: [number, number] | null = c.latency ? [c.latency[0], c.latency[1]] : null;
        return [
          name,
          { latency, errorRate: c.errorRate, fault: c.fault, overridden: runtime.controls.isOverridden(name) },
        ];
      }),
    ),
  };
}

function controlsRoutes(root: FastifyInstance, security: DashboardApiOptions['security'], names: AreaName[]): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const AreaParam = Type.Object({ area: Type.Union(names.map((n) => Type.Literal(n))) });
  const schema = (operationId: string, summary: string) => ({ operationId, tags: ['mockyard'], summary, security });

  app.get(
    '/controls',
    {
      schema: {
        ...schema('mockyard_controls_get', 'Latency, error rate and fault in play per area'),
        response: { 200: ControlsSchema, ...unauthorized },
      },
    },
    async () => controlsOf(root, names),
  );

  app.put(
    '/controls/:area',
    {
      schema: {
        ...schema(
          'mockyard_controls_set',
          "Set one area's latency, error rate and fault until reset (overrides --latency and --error-rate)",
        ),
        params: AreaParam,
        body: ControlsBodySchema,
        response: { 200: ControlsSchema, 400: MockyardErrorSchema, ...unauthorized },
      },
    },
    async (request, reply) => {
      const body = request.body as ControlsBody;
      if (body.latency && body.latency[1] < body.latency[0]) {
        const message = `latency must be [low, high] with low <= high, got [${body.latency.join(', ')}]`;
        return sendMockyardError(reply, 400, message);
      }
      root.runtime.controls.set(request.params.area, body);
      return controlsOf(root, names);
    },
  );

  app.delete(
    '/controls/:area',
    {
      schema: {
        ...schema('mockyard_controls_clear', 'Back to the server-wide flags for one area'),
        params: AreaParam,
        response: { 200: ControlsSchema, ...unauthorized },
      },
    },
    async (request) => {
      root.runtime.controls.clear(request.params.area);
      return controlsOf(root, names);
    },
  );
}
