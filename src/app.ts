// buildApp(config, stores): shared plugins, then each area as its own encapsulated plugin.
import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import cors from '@fastify/cors';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AREAS } from './areas/index.js';
import type { AreaDefinition } from './platform/area.js';
import type { Config } from './config.js';
import { installRootErrorHandling } from './platform/http/errors.js';
import type { Stores } from './platform/data/stores.js';
import { Scenarios, rewriteScenarioPrefix } from './scenarios/registry.js';
import { areaScope } from './platform/http/area-errors.js';
import { mockyardRoutes } from './platform/admin/mockyard-routes.js';
import { openapiPlugin } from './platform/docs/openapi.js';
import { prefillOf } from './platform/docs/prefill.js';
import { adminRoutes } from './platform/admin/admin-routes.js';
import { dashboardPage } from './platform/dashboard/page.js';
import { frontDoor } from './platform/admin/front-door.js';
import { packageVersion } from './paths.js';
import { Runtime } from './platform/controls/runtime.js';
import { QueryPool } from './platform/data/query-pool.js';
import { lazyCompilersFactory } from './platform/http/lazy-compilers.js';
import { CORS_WITHOUT_ORIGIN, corsOptions, installAdminPolicy } from './platform/admin/browser-policy.js';
import { clientErrorHandler } from './platform/http/client-errors.js';
import { MAX_PARAM_LENGTH, areaResolver, frameworkErrorHandler, httpServerOptions } from './platform/http/limits.js';
import { installJsonBodyParser } from './platform/http/json-body.js';
import { installBodyBudget, installRefusedBodyDrain } from './platform/http/body-budget.js';
import { type AdminGuards, adminHostGuard, adminTokenGuard } from './platform/admin/admin-guard.js';
import { frontServerFactory, plainServerFactory } from './platform/hosts/proxy.js';
import { Pipeline } from './platform/http/pipeline.js';
import type { CertificateAuthority } from './platform/hosts/certificates.js';
import type { HostRouter } from './platform/hosts/real-hosts.js';
import { installRequestLog, requestSerializer } from './platform/http/request-log.js';
import { Stubs } from './stubs/world.js';
import { StubStep } from './stubs/plugin.js';
import { wiremockAdmin } from './stubs/admin.js';
import { viewOf } from './stubs/admin-requests.js';
import type { DashboardStubs } from './platform/dashboard/api.js';

export interface BuildAppOptions {
  /** Serve only this area, at the root path (its own base address). Default: all areas under their prefixes. */
  only?: AreaDefinition;
  /** The areas to serve; tests pass small fake ones. Default: all five. */
  areas?: readonly AreaDefinition[];
  /** Journal and fault draws shared by several apps (the shared port and --area-ports). Default: a new one. */
  runtime?: Runtime;
  /**
   * Serve real host names and act as a forward proxy (the shared port only). Without it the app
   * answers every Host under the /archive, /dkan, ... prefixes.
   */
  realHosts?: { router: HostRouter; ca: CertificateAuthority };
  /** Worker threads for unbounded SQL, shared by several apps. Default: a new one, closed with the app. */
  queryPool?: QueryPool;
  /** Scenarios shared by several apps (the shared port and --area-ports). Default: a new, empty set. */
  scenarios?: Scenarios;
  /** Stub mappings shared by several apps. Default: new ones, from --mappings, reset with the runtime. */
  stubs?: Stubs;
}

export function loggerOptions(config: Config): FastifyServerOptions['logger'] {
  if (config.logLevel === 'silent') return false;
  const serializers = { req: requestSerializer(config) };
  // Pretty output is for people at a terminal; pipes, containers and log collectors get JSON lines.
  const pretty = config.logFormat === null ? process.stdout.isTTY === true : config.logFormat === 'pretty';
  if (pretty) {
    return {
      level: config.logLevel,
      serializers,
      transport: { target: 'pino-pretty', options: { translateTime: 'HH:MM:ss.l', ignore: 'pid,hostname,reqId' } },
    };
  }
  return { level: config.logLevel, serializers };
}

export async function buildApp(
  config: Config,
  stores: Stores,
  options: BuildAppOptions = {},
): Promise<FastifyInstance> {
  const areas = options.only ? [options.only] : (options.areas ?? AREAS);
  const areaOf = areaResolver(areas, options.only);
  const runtime = options.runtime ?? new Runtime(config);
  const scenarios = options.scenarios ?? new Scenarios(config.scenario);
  const pipeline = new Pipeline({
    config,
    runtime,
    stores,
    scenarios,
    areas,
    areaOf,
    frontHeaders: CORS_WITHOUT_ORIGIN,
  });
  const app = createFastify(config, pipeline, areaOf, options.only ? undefined : options.realHosts);
  decoratePlatform(app, { config, stores, runtime, scenarios, ownScenarios: !options.scenarios, options });
  const stubs = options.stubs ?? ownStubs(app, config, runtime);
  const stubStep = new StubStep({ stubs, areaOf, only: options.only, runtime, scenarios });
  pipeline.stubs = stubStep;

  // CORS first (its headers go on every answer, cached ones included), then the one pipeline of area requests.
  await app.register(cors, corsOptions(config));
  installJsonBodyParser(app);
  installBodyBudget(app, areaOf);
  installRefusedBodyDrain(app);
  pipeline.install(app);
  pipeline.requestLog = installRequestLog(app, config, { areaOf, terminal: process.stdout.isTTY === true });
  installRootErrorHandling(app, !options.only);
  // Admin route families answer only to host names mockyard serves (DNS rebinding), before anything else of
  // theirs; area routes never run these guards.
  const guards: AdminGuards = { host: adminHostGuard(config), token: adminTokenGuard(config) };
  installAdminPolicy(app, config, guards.host);
  await registerRoutes(app, { config, stores, runtime, areas, areaOf, only: options.only, stubs, stubStep, guards });
  return app;
}

/** The Fastify instance on its server (the front server of real host names, or a plain one). */
function createFastify(
  config: Config,
  pipeline: Pipeline,
  areaOf: (url: string) => AreaDefinition | undefined,
  realHosts: BuildAppOptions['realHosts'],
) {
  const serverOptions = httpServerOptions(config);
  const server = realHosts
    ? frontServerFactory({ ...realHosts, server: serverOptions })
    : plainServerFactory(serverOptions);
  // Below debug, requests share the app's logger: a child per request costs more than a cached answer.
  const perRequestLogger = config.logLevel === 'debug' || config.logLevel === 'trace';
  const app = Fastify({
    serverFactory: (handler, opts) => server(pipeline.front(handler), opts),
    // Node closes a connection whose request has not fully arrived by then (slow headers or body).
    requestTimeout: config.bodyTimeout,
    schemaController: { compilersFactory: lazyCompilersFactory() },
    frameworkErrors: frameworkErrorHandler(areaOf),
    clientErrorHandler: clientErrorHandler(areaOf),
    logger: loggerOptions(config),
    ...(perRequestLogger ? {} : { childLoggerFactory: (logger) => logger }),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    // Keep-alive sockets that are idle are closed at shutdown; busy ones finish their request first.
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    // Fastify's two lines per request are replaced by installRequestLog's one.
    logController: new LogController({ disableRequestLogging: true }),
    // /scenarios/{name}/<area>/... is routed as /<area>/... in that scenario.
    rewriteUrl: rewriteScenarioPrefix,
  }).withTypeProvider<TypeBoxTypeProvider>();

  // A client may send its request and close its side at once (`nc -N`, scripted sockets). Node's default is
  // to drop the request then; answers that wait on the query pool would be lost, so finish them first.
  (app.server as unknown as { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  return app;
}

/**
 * Platform decorations first, in one place: every plugin registered later may rely on them. What the app
 * was not given (a query pool, scenarios) it owns, and closes with itself.
 */
function decoratePlatform(
  app: FastifyInstance,
  deps: {
    config: Config;
    stores: Stores;
    runtime: Runtime;
    scenarios: Scenarios;
    ownScenarios: boolean;
    options: BuildAppOptions;
  },
): void {
  const { config, stores, runtime, scenarios, options } = deps;
  app.decorate('config', config);
  app.decorate('runtime', runtime);
  app.decorate('queryPool', options.queryPool ?? new QueryPool());
  if (!options.queryPool) app.addHook('onClose', () => app.queryPool.close());
  if (deps.ownScenarios) {
    // This app owns its scenarios: reset removes them, closing the app closes their stores.
    const unsubscribe = runtime.onReset(() => scenarios.clear());
    app.addHook('onClose', async () => {
      unsubscribe();
      scenarios.close();
    });
  }
  // A new generation of data or a changed scenario empties the answer cache.
  const stopSwap = stores.onSwap(() => runtime.answers.clear());
  const stopScenarios = scenarios.onChange(() => runtime.answers.clear());
  app.addHook('onClose', async () => {
    stopSwap();
    stopScenarios();
  });
}

/** Stub mappings of this app alone (from --mappings), emptied by a reset. */
function ownStubs(app: FastifyInstance, config: Config, runtime: Runtime): Stubs {
  const own = new Stubs({ mappingsDir: config.mappings, recordTo: config.recordTo, adminToken: config.adminToken });
  const unsubscribe = runtime.onReset(() => own.reset());
  app.addHook('onClose', async () => unsubscribe());
  return own;
}

/** Docs, mockyard's own routes (health, admin, stubs' admin, dashboard), the front door, then each area. */
async function registerRoutes(
  app: FastifyInstance,
  deps: {
    config: Config;
    stores: Stores;
    runtime: Runtime;
    areas: readonly AreaDefinition[];
    areaOf: (url: string) => AreaDefinition | undefined;
    only: AreaDefinition | undefined;
    stubs: Stubs;
    stubStep: StubStep;
    guards: AdminGuards;
  },
): Promise<void> {
  const { config, stores, areas, areaOf, only, stubs, guards } = deps;
  await app.register(openapiPlugin, {
    areas,
    prefixed: !only,
    prefill: () => prefillOf(areas, stores.current, config),
  });
  await app.register(mockyardRoutes, { prefix: '/__mockyard', areas, guards });
  if (config.admin) {
    const dashboard = stubsForDashboard(stubs, deps.runtime, { areaOf, only });
    await app.register(adminRoutes, { prefix: '/__mockyard', areas, guards, stubs: dashboard });
    await app.register(wiremockAdmin, { prefix: '/__admin', ...deps.stubStep.options, guards });
  }
  // Requests with a body, and paths outside every area, reach the stubs once Fastify has their bytes.
  deps.stubStep.installBodyStep(app);
  await app.register(dashboardPage, { prefix: '/__mockyard', areas, guards });
  // An area on its own port owns its root path.
  if (!only) await app.register(frontDoor, { areas, version: packageVersion() });
  for (const area of areas) {
    await app.register(areaScope, { prefix: only ? '' : area.prefix, area, config });
  }
}

/** Names the stubs in the journal's entries, and answers the dashboard's "which stub nearly matched?". */
function stubsForDashboard(stubs: Stubs, runtime: Runtime, seen: Parameters<typeof viewOf>[0]): DashboardStubs {
  runtime.journal.nameStubs((id) => {
    const name = stubs.store.get(id)?.json.name;
    return typeof name === 'string' ? name : undefined;
  });
  return {
    nearMisses: async (record) =>
      (await stubs.store.nearMisses(viewOf(seen, record), stubs.slicing())).map((m) => ({
        stubMapping: m.stub.json,
        matchResult: { distance: m.distance },
        misses: m.misses,
      })),
  };
}
