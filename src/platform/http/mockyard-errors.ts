// mockyard's own error body, for its own routes and refusals: Fastify's {statusCode, error, message}.
// Areas never use it for their answers; they write their real service's shape (area-errors.ts).
import { STATUS_CODES } from './node-http.js';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';

export interface MockyardErrorBody {
  statusCode: number;
  /** The reason phrase of the status (RFC 9110), never another status's. */
  error: string;
  message: string;
}

/** The body's schema, for the response schemas of mockyard's own routes. */
export const MockyardErrorSchema = Type.Object({
  statusCode: Type.Integer(),
  error: Type.String(),
  message: Type.String(),
});

export function mockyardError(status: number, message: string): MockyardErrorBody {
  return { statusCode: status, error: STATUS_CODES[status] ?? 'Error', message };
}

/** The body as JSON text, for the places that write bytes without a reply (the front server, client errors). */
export const mockyardErrorJson = (status: number, message: string): string =>
  JSON.stringify(mockyardError(status, message));

/** Sends mockyard's error body; `extra` adds fields after the three (a scenario's JSON pointer). */
export function sendMockyardError(
  reply: FastifyReply,
  status: number,
  message: string,
  extra: Record<string, unknown> = {},
): FastifyReply {
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send({ ...mockyardError(status, message), ...extra });
}
