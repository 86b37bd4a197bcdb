// The one error path of an area: every 4xx/5xx it sends (thrown, not found, forced, refused before routing) leaves here.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AreaDefinition, AreaPluginOptions } from '../area.js';

import { HttpError } from './error-types.js';

/** Answers `status` in the area's own error shape. Without a message the area writes its natural one. */
export function sendAreaError(
  area: AreaDefinition,
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  message?: string,
  cause?: unknown,
): FastifyReply {
  const answer = area.formatError({ status, message, request, cause });
  if (answer.headers) reply.headers(answer.headers);
  return reply
    .code(answer.status ?? status)
    .type(answer.contentType)
    .send(answer.body);
}

/**
 * Statuses any operation can fail with, documented or not: a crash (500) and an outage (503). Every
 * area's formatError writes them in the area's own shape.
 */
export const ALWAYS_FORCIBLE = [500, 503] as const;

/**
 * The statuses `Prefer: code=` may force for this operation: the 4xx/5xx keys of its route's response
 * schema (the contract's documented answers), plus 500 and 503.
 */
export function forcibleStatuses(request: FastifyRequest): readonly number[] {
  const response = request.routeOptions.schema?.response as Record<string, unknown> | undefined;
  if (!response) return ALWAYS_FORCIBLE;
  // Worked out when a control asks (Prefer: code, the error rate), never on a plain request.
  return [...new Set([...documentedErrorStatuses(request), ...ALWAYS_FORCIBLE])].sort((a, b) => a - b);
}

/**
 * The error statuses an operation documents: the 4xx/5xx keys of its route's response schema. The
 * error rate picks from these.
 */
export function documentedErrorStatuses(request: FastifyRequest): readonly number[] {
  const schema = request.routeOptions.schema;
  const response = schema?.response as Record<string, unknown> | undefined;
  if (!response) return [];
  return Object.keys(response)
    .map(Number)
    .filter((s) => Number.isInteger(s) && s >= 400)
    .sort((a, b) => a - b);
}

function statusOf(error: FastifyError | HttpError): number {
  const status = error.statusCode;
  return typeof status === 'number' && status >= 400 && status < 600 ? status : 500;
}

/**
 * An area's encapsulated scope: its 404 and error handler both go through `area.formatError`, then the
 * area's own routes. 5xx details stay in the log; the client sees the area's natural 500 body.
 */
export async function areaScope(
  scope: FastifyInstance,
  opts: AreaPluginOptions & { area: AreaDefinition },
): Promise<void> {
  const { area } = opts;
  // The validation policy of platform/area.ts: the area's parsers are the truth, schemas document.
  scope.setValidatorCompiler(() => () => true);
  scope.setNotFoundHandler((request, reply) => sendAreaError(area, request, reply, 404));
  scope.setErrorHandler((error: FastifyError, request, reply) => {
    const status = statusOf(error);
    // A thrown 503 is deliberate (the query pool's work budget, an unavailable item), not a failure.
    if (status === 503 && error instanceof HttpError) {
      if (error.busy) reply.header('retry-after', '1');
      return sendAreaError(area, request, reply, status, error.message, error);
    }
    if (status >= 500) {
      request.log.error({ err: error, area: area.name }, 'request failed');
      return sendAreaError(area, request, reply, 500);
    }
    return sendAreaError(area, request, reply, status, error.message, error);
  });
  await scope.register(area.plugin, { config: opts.config });
}
