// The `mockyard-hint` response header: a faithful 401 or 404 says nothing about why; this header does,
// leaving the real service's status and body untouched.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AreaDefinition } from '../area.js';
import type { Config } from '../../config.js';

export const HINT_HEADER = 'mockyard-hint';

/** The hint step of the pipeline's onSend: most answers are not auth or not-found answers and pass untouched. */
export function hintStep(area: AreaDefinition, request: FastifyRequest, reply: FastifyReply, config: Config): void {
  const status = reply.statusCode;
  if (status !== 401 && status !== 403 && status !== 404) return;
  const hint = area.hint?.(request, status, config);
  if (hint) reply.header(HINT_HEADER, hint);
}
