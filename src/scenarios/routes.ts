// Admin routes for scenarios: PUT, GET and DELETE /__mockyard/scenarios[/{name}]. Registered inside the admin routes (switch and token).
import { mockyardError } from '../platform/http/mockyard-errors.js';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { ScenarioError } from './errors.js';
import { SCENARIO_LIMITS, ScenarioBodySchema, ScenarioNameSchema } from './schema.js';
import { summary } from './registry.js';

const TAGS = ['mockyard'];

const CountsSchema = Type.Record(Type.String(), Type.Record(Type.String(), Type.Integer()), {
  description: 'Records per area, e.g. {"appcenter": {"users": 2, "apps": 1, "releases": 3}}',
});
const ScenarioSummarySchema = Type.Object({
  name: Type.String(),
  areas: Type.Array(Type.String(), {
    description: 'The areas this scenario answers for; the others keep the generated data',
  }),
  counts: CountsSchema,
  path: Type.String({
    description: 'Path prefix that puts a request into this scenario, e.g. /scenarios/{name}/appcenter/...',
  }),
});
const ErrorSchema = Type.Object({
  statusCode: Type.Integer(),
  error: Type.String(),
  message: Type.String(),
  pointer: Type.Optional(Type.String({ description: 'JSON pointer of the first problem in the body' })),
});
const NameParams = Type.Object({ name: ScenarioNameSchema });

const withPath = (s: ReturnType<typeof summary>) => ({ ...s, path: `/scenarios/${s.name}` });

export async function scenarioRoutes(
  app: FastifyInstance,
  opts: { security?: { mockyardAdmin: never[] }[] },
): Promise<void> {
  const { scenarios } = app;
  const security = opts.security;
  const notFound = (name: string) => mockyardError(404, `Unknown scenario "${name}"`);

  app.get(
    '/scenarios',
    {
      schema: {
        operationId: 'mockyard_scenarios_list',
        tags: TAGS,
        summary: 'The scenarios held, by name',
        security,
        response: { 200: Type.Object({ scenarios: Type.Array(ScenarioSummarySchema) }) },
      },
    },
    async () => ({ scenarios: scenarios.list().map((s) => withPath(summary(s))) }),
  );

  app.get(
    '/scenarios/:name',
    {
      schema: {
        operationId: 'mockyard_scenarios_get',
        tags: TAGS,
        summary: 'One scenario',
        security,
        params: NameParams,
        response: { 200: ScenarioSummarySchema, 404: ErrorSchema },
      },
    },
    async (request, reply) => {
      const { name } = request.params as { name: string };
      const scenario = scenarios.get(name);
      return scenario ? withPath(summary(scenario)) : reply.code(404).send(notFound(name));
    },
  );

  app.put(
    '/scenarios/:name',
    {
      bodyLimit: SCENARIO_LIMITS.bodyBytes,
      // The body is checked by buildScenario against the same schema, so that a 400 names the JSON pointer of the first problem.
      validatorCompiler: () => () => true,
      schema: {
        operationId: 'mockyard_scenarios_put',
        tags: TAGS,
        summary: 'Create (201) or replace (200) a scenario',
        description:
          `Records per area, written as the real services return them. A bad body gets a 400 naming the JSON pointer of the first problem, and nothing is stored. ` +
          `Limits: ${SCENARIO_LIMITS.scenarios} scenarios (409 past it), ${SCENARIO_LIMITS.bodyBytes / 1024 / 1024} MB per body (413), ` +
          `${SCENARIO_LIMITS.fileBytes / 1024 / 1024} MiB per archive file and ${SCENARIO_LIMITS.archiveBytes / 1024 / 1024} MiB of archive files per scenario (413).`,
        security,
        params: NameParams,
        body: ScenarioBodySchema,
        response: {
          200: ScenarioSummarySchema,
          201: ScenarioSummarySchema,
          400: ErrorSchema,
          409: ErrorSchema,
          413: ErrorSchema,
        },
      },
    },
    async (request, reply) => {
      const { name } = request.params as { name: string };
      try {
        const { scenario, replaced } = scenarios.put(name, request.body);
        return reply.code(replaced ? 200 : 201).send(withPath(summary(scenario)));
      } catch (err) {
        if (!(err instanceof ScenarioError)) throw err;
        return reply.code(err.statusCode as 400 | 409 | 413).send({
          ...mockyardError(err.statusCode, err.message),
          ...(err.pointer === null ? {} : { pointer: err.pointer }),
        });
      }
    },
  );

  app.delete(
    '/scenarios/:name',
    {
      schema: {
        operationId: 'mockyard_scenarios_delete',
        tags: TAGS,
        summary: 'Remove a scenario (requests already running in it finish with its data)',
        security,
        params: NameParams,
        response: { 200: Type.Object({ removed: Type.String() }), 404: ErrorSchema },
      },
    },
    async (request, reply) => {
      const { name } = request.params as { name: string };
      return scenarios.remove(name) ? { removed: name } : reply.code(404).send(notFound(name));
    },
  );
}
