// Swagger UI at /docs, loaded on the first visit: the UI package (with its YAML and static-file
// dependencies) is a fifth of mockyard's start-up time, and most runs (CI, tests) never open it.
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

import { brandingOf } from './branding.js';
import { keepPlaceholders } from './prefill.js';

const DROPPED_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'date']);

/** `credentials`: security scheme name to the value the page authorizes with when it loads. */
export async function docsUi(app: FastifyInstance, credentials: () => Record<string, string>): Promise<void> {
  let ui: Promise<FastifyInstance> | undefined;
  const load = () =>
    (ui ??= (async () => {
      const { default: swaggerUi } = await import('@fastify/swagger-ui');
      const instance = Fastify({ logger: false });
      // The UI reads the document through `swagger()`; hand it the main app's.
      await instance.register(
        fp(
          async (i) => {
            i.decorate('swagger', app.swagger.bind(app));
          },
          { name: '@fastify/swagger' },
        ),
      );
      await instance.register(swaggerUi, {
        routePrefix: '/docs',
        uiConfig: { docExpansion: 'list', deepLinking: true },
        ...brandingOf(credentials()),
        transformSpecification: (spec) => {
          keepPlaceholders(spec);
          return spec;
        },
      });
      await instance.ready();
      return instance;
    })());

  const serve = async (request: FastifyRequest, reply: FastifyReply) => {
    const res = await (await load()).inject({
      method: request.method as 'GET',
      url: request.url,
      headers: request.headers,
    });
    for (const [name, value] of Object.entries(res.headers)) {
      if (value !== undefined && !DROPPED_HEADERS.has(name)) reply.header(name, value);
    }
    return reply.code(res.statusCode).send(res.rawPayload);
  };
  app.get('/docs', { schema: { hide: true } }, serve);
  app.get('/docs/*', { schema: { hide: true } }, serve);
}
