// mockyard's own error body, for its own routes and refusals: Fastify's {statusCode, error, message}.
// Areas never use it for their answers; they write their real service's shape (area-errors.ts).
import { STATUS_CODES } from './node-http.js';
import type { FastifyReply } from 'fastify';

export interface MockyardErrorBody {
  statusCode: number;
  /** The reason phrase of the status (RFC 9110), never another status's. */
  error: string;
  message: string;
}

export function mockyardError(status: number, message: string): MockyardErrorBody {
  return { statusCode: status, error: STATUS_CODES[status] ?? 'Error', message };
}

export function sendMockyardError(reply: FastifyReply, status: number, message: string): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send(mockyardError(status, message));
}
