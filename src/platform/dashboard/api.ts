// The admin data the dashboard reads and sets: one journal entry, traffic per area, and the
// per-area controls. Registered inside the admin routes, so the admin switch, token and browser
// policy apply exactly as to every other admin route.
import { mockyardError } from '../http/mockyard-errors.js';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type Static } from 'typebox';
import type { AreaDefinition } from '../area.js';
import { FAULT_KINDS, MAX_DELAY_MS } from '../controls/prefer.js';
import { liveRoute } from './live.js';
import { JournalEntrySchema } from '../admin/admin-routes.js';

const ErrorSchema = Type.Object({ statusCode: Type.Integer(), error: Type.String(), message: Type.String() });

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

export interface DashboardApiOptions {
  areas: readonly AreaDefinition[];
  security: { mockyardAdmin: never[] }[] | undefined;
}

export async function dashboardApi(root: FastifyInstance, opts: DashboardApiOptions): Promise<void> {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const { runtime, config } = root;
  const names = opts.areas.map((a) => a.name);
  const AreaParam = Type.Object({ area: Type.Union(names.map((n) => Type.Literal(n))) });
  const { security } = opts;
  const unauthorized = { 401: ErrorSchema };

  liveRoute(root);

  app.get(
    '/requests/:id',
    {
      schema: {
        operationId: 'mockyard_request_get',
        tags: ['mockyard'],
        summary: 'One journaled request, while the journal still holds it',
        params: Type.Object({ id: Type.Integer({ minimum: 1 }) }),
        security,
        response: { 200: JournalEntrySchema, 404: ErrorSchema, ...unauthorized },
      },
    },
    async (request, reply) => {
      const entry = runtime.journal.get(request.params.id);
      if (entry) return entry;
      return reply
        .code(404)
        .send(
          mockyardError(
            404,
            `The journal holds no request ${request.params.id} (it keeps the last ${config.journalSize})`,
          ),
        );
    },
  );

  app.get(
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
    async () => runtime.traffic.snapshot(names),
  );

  const controlsOf = () => ({
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
  });
  const ControlsSchema = Type.Object({
    serverWide: Type.Object({ latency: LatencySchema, errorRate: Type.Number() }),
    areas: Type.Record(Type.String(), AreaControlsSchema),
  });

  app.get(
    '/controls',
    {
      schema: {
        operationId: 'mockyard_controls_get',
        tags: ['mockyard'],
        summary: 'Latency, error rate and fault in play per area',
        security,
        response: { 200: ControlsSchema, ...unauthorized },
      },
    },
    async () => controlsOf(),
  );

  app.put(
    '/controls/:area',
    {
      schema: {
        operationId: 'mockyard_controls_set',
        tags: ['mockyard'],
        summary: "Set one area's latency, error rate and fault until reset (overrides --latency and --error-rate)",
        params: AreaParam,
        body: ControlsBodySchema,
        security,
        response: { 200: ControlsSchema, 400: ErrorSchema, ...unauthorized },
      },
    },
    async (request, reply) => {
      const body = request.body as ControlsBody;
      if (body.latency && body.latency[1] < body.latency[0]) {
        return reply
          .code(400)
          .send(mockyardError(400, `latency must be [low, high] with low <= high, got [${body.latency.join(', ')}]`));
      }
      runtime.controls.set(request.params.area, body);
      return controlsOf();
    },
  );

  app.delete(
    '/controls/:area',
    {
      schema: {
        operationId: 'mockyard_controls_clear',
        tags: ['mockyard'],
        summary: 'Back to the server-wide flags for one area',
        params: AreaParam,
        security,
        response: { 200: ControlsSchema, ...unauthorized },
      },
    },
    async (request) => {
      runtime.controls.clear(request.params.area);
      return controlsOf();
    },
  );
}
