// Root 404 and error handlers; areas set their own inside their prefix.
import type { FastifyError, FastifyInstance } from 'fastify';
import { sendMockyardError } from './mockyard-errors.js';

export function installRootErrorHandling(app: FastifyInstance, withNotFound: boolean): void {
  // An area served at the root of its own port sets the 404 handler itself.
  if (withNotFound)
    app.setNotFoundHandler((request, reply) => {
      const pathOnly = request.url.split('?')[0];
      sendMockyardError(
        reply,
        404,
        `No route ${request.method} ${pathOnly}. Areas live under /archive, /marketcheck, /appcenter, /agco and /dkan; see / and /docs.`,
      );
    });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status = error.statusCode && error.statusCode >= 400 ? error.statusCode : 500;
    if (status >= 500) {
      request.log.error({ err: error }, 'request failed');
      // Internals stay in the log, not in the body.
      sendMockyardError(reply, 500, 'Internal Server Error');
      return;
    }
    sendMockyardError(reply, status, error.message);
  });
}
