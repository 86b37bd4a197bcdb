// Root 404 and error handlers; areas set their own inside their prefix.
import type { FastifyError, FastifyInstance } from 'fastify';

export function installRootErrorHandling(app: FastifyInstance, withNotFound: boolean): void {
  // An area served at the root of its own port sets the 404 handler itself.
  if (withNotFound)
    app.setNotFoundHandler((request, reply) => {
      const pathOnly = request.url.split('?')[0];
      reply.code(404).send({
        statusCode: 404,
        error: 'Not Found',
        message: `No route ${request.method} ${pathOnly}. Areas live under /archive, /marketcheck, /appcenter, /agco and /dkan; see /docs.`,
      });
    });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status = error.statusCode && error.statusCode >= 400 ? error.statusCode : 500;
    if (status >= 500) {
      request.log.error({ err: error }, 'request failed');
      // Internals stay in the log, not in the body.
      reply.code(500).send({ statusCode: 500, error: 'Internal Server Error', message: 'Internal Server Error' });
      return;
    }
    reply.code(status).send({
      statusCode: status,
      error: error.name === 'FastifyError' ? 'Bad Request' : error.name,
      message: error.message,
    });
  });
}
