// mockyard's own errors, {statusCode, error, message}, written by one helper; areas write theirs through formatError.
import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';

export interface OwnError {
  statusCode: number;
  error: string;
  message: string;
}

/** mockyard's own error body: Fastify's shape, so clients of Fastify servers read it as they expect. */
export function ownError(status: number, message: string, error = STATUS_CODES[status] ?? 'Error'): OwnError {
  return { statusCode: status, error, message };
}

/** Answers with mockyard's own error body (admin routes, unknown paths, refused requests outside an area). */
export function sendOwnError(reply: FastifyReply, status: number, message: string, error?: string): FastifyReply {
  return reply.code(status).send(ownError(status, message, error));
}

/** Root 404 and error handlers; areas set their own inside their prefix. */
export function installRootErrorHandling(app: FastifyInstance, withNotFound: boolean): void {
  // An area served at the root of its own port sets the 404 handler itself.
  if (withNotFound)
    app.setNotFoundHandler((request, reply) => {
      const pathOnly = request.url.split('?')[0];
      sendOwnError(
        reply,
        404,
        `No route ${request.method} ${pathOnly}. Areas live under /archive, /marketcheck, /appcenter, /agco and /dkan; see /docs.`,
      );
    });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status = error.statusCode && error.statusCode >= 400 ? error.statusCode : 500;
    if (status >= 500) {
      request.log.error({ err: error }, 'request failed');
      // Internals stay in the log, not in the body.
      sendOwnError(reply, 500, 'Internal Server Error');
      return;
    }
    sendOwnError(reply, status, error.message, error.name === 'FastifyError' ? 'Bad Request' : error.name);
  });
}
