// The `mockyard-hint` response header: a faithful 401 or 404 says nothing about why; this header does,
// leaving the real service's status and body untouched.
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import type { AreaDefinition } from '../areas/types.js';
import type { Config } from '../config.js';
import { areaOf } from './limits.js';

export const HINT_HEADER = 'mockyard-hint';
const HINTED = new Set([401, 403, 404]);

export interface HintOptions {
  areas: readonly AreaDefinition[];
  only?: AreaDefinition;
  config: Config;
}

async function hints(app: FastifyInstance, opts: HintOptions): Promise<void> {
  app.addHook('onSend', async (request, reply, payload) => {
    if (!HINTED.has(reply.statusCode)) return payload;
    const area = areaOf(request.url, opts.areas, opts.only);
    const hint = area?.hint?.(request, reply.statusCode, opts.config);
    if (hint) reply.header(HINT_HEADER, hint);
    return payload;
  });
}

export const hintsPlugin = fp(hints, { name: 'mockyard-hints' });
