// Admin routes for scenarios: PUT, GET and DELETE /__mockyard/scenarios[/{name}]. Registered inside the admin routes (switch and token).
import type { FastifyInstance, FastifyReply } from 'fastify';
import { MockyardErrorSchema, sendMockyardError } from '../platform/http/mockyard-errors.js';
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
  ...MockyardErrorSchema.properties,
  pointer: Type.Optional(Type.String({ description: 'JSON pointer of the first problem in the body' })),
});
const NameParams = Type.Object({ name: ScenarioNameSchema });

const withPath = (s: ReturnType<typeof summary>) => ({ ...s, path: `/scenarios/${s.name}` });

type Security = { mockyardAdmin: never[] }[] | undefined;

const notFound = (reply: FastifyReply, name: string) => sendMockyardError(reply, 404, `Unknown scenario "${name}"`);

export async function scenarioRoutes(app: FastifyInstance, opts: { security?: Security }): Promise<void> {
  // The body's bytes go to the scenario builder process as they are, and are decoded and parsed there.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  readRoutes(app, opts.security);
  putRoute(app, opts.security);
  deleteRoute(app, opts.security);
}

/** mockyard_scenarios_list and mockyard_scenarios_get. */
function readRoutes(app: FastifyInstance, security: Security): void {
  const { scenarios } = app;
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
      return scenario ? withPath(summary(scenario)) : notFound(reply, name);
    },
  );
}

/** mockyard_scenarios_put: the body is built into a store in the builder process, then swapped in. */
function putRoute(app: FastifyInstance, security: Security): void {
  const { scenarios } = app;
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
          `${SCENARIO_LIMITS.fileBytes / 1024 / 1024} MiB per archive file and ${SCENARIO_LIMITS.archiveBytes / 1024 / 1024} MiB of archive files per scenario, ` +
          `${SCENARIO_LIMITS.totalBytes / 1024 / 1024} MiB held by all scenarios together (413). A file given as content or base64 is bounded by the body limit.`,
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
        const { scenario, replaced } = await scenarios.putText(name, Buffer.isBuffer(request.body) ? request.body : '');
        return reply.code(replaced ? 200 : 201).send(withPath(summary(scenario)));
      } catch (err) {
        if (!(err instanceof ScenarioError)) throw err;
        return sendMockyardError(
          reply,
          err.statusCode,
          err.message,
          err.pointer === null ? {} : { pointer: err.pointer },
        );
      }
    },
  );
}

/** mockyard_scenarios_delete. */
function deleteRoute(app: FastifyInstance, security: Security): void {
  const { scenarios } = app;
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
      return scenarios.remove(name) ? { removed: name } : notFound(reply, name);
    },
  );
}
