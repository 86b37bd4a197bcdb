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
  const hint = (status === 404 ? basePathHint(area, request) : undefined) ?? area.hint?.(request, status, config);
  if (hint) reply.header(HINT_HEADER, hint);
}

/**
 * A path that repeats the real service's base path under the area's prefix (/marketcheck/v2/..., /dkan/api/1/...):
 * the prefix already stands for the whole base URL.
 */
function basePathHint(area: AreaDefinition, request: FastifyRequest): string | undefined {
  const basePath = area.upstream.basePath;
  if (basePath === '') return undefined;
  const path = request.url.split('?')[0] ?? '';
  const at = path.indexOf(`${area.prefix}${basePath}/`);
  if (at < 0) return undefined;
  const fixed = `${path.slice(0, at)}${area.prefix}${path.slice(at + area.prefix.length + basePath.length)}`;
  return `${area.prefix} stands for ${area.upstream} as a whole: drop ${basePath} from the path (${fixed}).`;
}
