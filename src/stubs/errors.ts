// The WireMock admin API's errors: its one error body (WireMock's Errors: {errors: [{code, source, title, detail}]}),
// and a mapping that cannot be used.
import type { FastifyReply } from 'fastify';

/** WireMock's error codes (com.github.tomakehurst.wiremock.common.Errors): 10 invalid input, 40 not found. */
export const ERROR_CODES = { invalid: 10, notFound: 40 } as const;

/** Sends WireMock's admin error body; every /__admin error goes through here. */
export function sendWiremockError(
  reply: FastifyReply,
  status: number,
  error: { code: number; title: string; pointer?: string; detail?: string },
): FastifyReply {
  const { code, title, pointer, detail } = error;
  const one = {
    code,
    ...(pointer === undefined ? {} : { source: { pointer } }),
    title,
    ...(detail === undefined ? {} : { detail }),
  };
  return reply.code(status).send({ errors: [one] });
}

/** WireMock's 404 for a mapping, request or route it does not know. */
export const sendNotFound = (reply: FastifyReply, what: string): FastifyReply =>
  sendWiremockError(reply, 404, { code: ERROR_CODES.notFound, title: `${what} not found` });

// A mapping that cannot be used: the JSON path of the field at fault and what is wrong with it (answered as 422).
export class MappingError extends Error {
  constructor(
    /** Where in the mapping, as a JSON pointer like WireMock's own 422s: `/request/headers/Accept/matches`. */
    readonly field: string,
    message: string,
    readonly status = 422,
  ) {
    super(`${field}: ${message}`);
  }
}

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
