// buildApp(config, stores): shared plugins, then each area as its own encapsulated plugin.
import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import cors from '@fastify/cors';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AREAS } from './areas/index.js';
import type { AreaDefinition } from './areas/types.js';
import type { Config } from './config.js';
import { installRootErrorHandling } from './platform/errors.js';
import { storePlugin, type Stores } from './platform/stores.js';
import { Scenarios, rewriteScenarioPrefix, scenarioPlugin } from './platform/scenarios.js';
import { areaScope } from './platform/area-errors.js';
import { mockyardRoutes } from './platform/mockyard-routes.js';
import { openapiPlugin } from './platform/openapi.js';
import { adminRoutes } from './platform/admin-routes.js';
import { controlsPlugin } from './platform/controls.js';
import { Runtime } from './platform/runtime.js';
import { lazyCompilersFactory } from './platform/lazy-compilers.js';
import { MAX_HEADER_BYTES, areaResolver, frameworkErrorHandler, installLimits } from './platform/limits.js';

export interface BuildAppOptions {
  /** Serve only this area, at the root path (its own base address). Default: all areas under their prefixes. */
  only?: AreaDefinition;
  /** The areas to serve; tests pass small fake ones. Default: all five. */
  areas?: readonly AreaDefinition[];
  /** Journal and fault draws shared by several apps (the shared port and --area-ports). Default: a new one. */
  runtime?: Runtime;
  /** Scenarios shared by several apps (the shared port and --area-ports). Default: a new, empty set. */
  scenarios?: Scenarios;
}

export function loggerOptions(config: Config): FastifyServerOptions['logger'] {
  if (config.logLevel === 'silent') return false;
  // Pretty output is for people at a terminal; pipes and containers get JSON lines.
  if (process.stdout.isTTY) {
    return { level: config.logLevel, transport: { target: 'pino-pretty', options: { translateTime: 'HH:MM:ss.l', ignore: 'pid,hostname' } } };
  }
  return { level: config.logLevel };
}

export async function buildApp(config: Config, stores: Stores, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const areas = options.only ? [options.only] : (options.areas ?? AREAS);
  const areaOf = areaResolver(areas, options.only);
  const app = Fastify({
    http: { maxHeaderSize: MAX_HEADER_BYTES },
    schemaController: { compilersFactory: lazyCompilersFactory() },
    frameworkErrors: frameworkErrorHandler(areaOf),
    logger: loggerOptions(config),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 1024 },
    // Keep-alive sockets that are idle are closed at shutdown; busy ones finish their request first.
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    // One line per request at info would drown a CI log; the journal and debug level have them.
    logController: new LogController({ disableRequestLogging: true }),
    // /scenarios/{name}/<area>/... is routed as /<area>/... in that scenario.
    rewriteUrl: rewriteScenarioPrefix,
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Platform decorations first, in one place: every plugin below may rely on them.
  app.decorate('config', config);
  const runtime = options.runtime ?? new Runtime(config);
  app.decorate('runtime', runtime);
  await app.register(storePlugin, { stores });
  let scenarios = options.scenarios;
  if (!scenarios) {
    // This app owns its scenarios: reset removes them, closing the app closes their stores.
    const own = new Scenarios(config.scenario);
    const unsubscribe = runtime.onReset(() => own.clear());
    app.addHook('onClose', async () => {
      unsubscribe();
      own.close();
    });
    scenarios = own;
  }
  await app.register(scenarioPlugin, { scenarios, areaOf });

  if (config.logLevel === 'debug' || config.logLevel === 'trace') {
    app.addHook('onResponse', async (request, reply) => {
      request.log.debug({ method: request.method, url: request.url, status: reply.statusCode, ms: reply.elapsedTime }, 'request');
    });
  }
  installLimits(app, areaOf);
  installRootErrorHandling(app, !options.only);
  const anyOrigin = config.corsOrigins.includes('*');
  const allowedOrigins = new Set(config.corsOrigins);
  await app.register(cors, {
    // CORS headers only answer browsers, which always send Origin; other clients get none of them.
    origin: (origin, callback) => {
      if (!origin) return callback(null, false);
      callback(null, anyOrigin || allowedOrigins.has(origin));
    },
    credentials: true,
    exposedHeaders: ['Content-Range', 'Content-Length', 'ETag', 'Last-Modified', 'Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset-Time', 'Preference-Applied', 'Mockyard-Error'],
  });
  await app.register(openapiPlugin, { areas, prefixed: !options.only });
  await app.register(mockyardRoutes, { prefix: '/__mockyard', areas });
  if (config.admin) await app.register(adminRoutes, { prefix: '/__mockyard', areas });
  // Before the areas, so its hooks wrap every area route.
  await app.register(controlsPlugin, { areaOf });
  for (const area of areas) {
    await app.register(areaScope, { prefix: options.only ? '' : area.prefix, area, config });
  }
  return app;
}
