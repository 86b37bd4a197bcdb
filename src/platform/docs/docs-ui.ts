// Swagger UI at /docs, loaded on the first visit: the UI package (with its YAML and static-file
// dependencies) is a fifth of mockyard's start-up time, and most runs (CI, tests) never open it.
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

const MARK =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#2f6f4e"/><path d="M7 23V9l9 8 9-8v14" fill="none" stroke="#fff" stroke-width="3" stroke-linejoin="round"/></svg>';
const LOGO =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 150 32"><rect width="32" height="32" rx="6" fill="#2f6f4e"/><path d="M7 23V9l9 8 9-8v14" fill="none" stroke="#fff" stroke-width="3" stroke-linejoin="round"/><text x="40" y="23" font-family="sans-serif" font-size="20" font-weight="bold" fill="#fff">mockyard</text></svg>';

const DROPPED_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'date']);

export async function docsUi(app: FastifyInstance): Promise<void> {
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
        // mockyard's name and mark, not the framework's.
        logo: { type: 'image/svg+xml', content: Buffer.from(LOGO), href: '/', target: '_self' },
        theme: {
          title: 'mockyard API',
          favicon: [
            { filename: 'mockyard.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: Buffer.from(MARK) },
          ],
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
