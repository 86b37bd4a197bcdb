// One OpenAPI document built from the route schemas, with a tag per area; Swagger UI at /docs.
import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import type { AreaDefinition } from '../area.js';
import { docsUi } from './docs-ui.js';
import { applyPrefill, type Prefill } from './prefill.js';

export interface OpenApiOptions {
  areas: readonly AreaDefinition[];
  /** False when an area is served at the root of its own port. */
  prefixed: boolean;
  /** Values from the fixtures for Swagger UI to prefill and authorize with. */
  prefill: () => Prefill;
}

async function openapi(app: FastifyInstance, opts: OpenApiOptions): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'mockyard',
        version: '0.1.0',
        description:
          'Deterministic mocks of five real HTTP services. Swap the real base URL for the matching server below; nothing else changes.\n\n' +
          'In Swagger UI every operation comes prefilled with values from the served fixtures, and the page is already authorized with fixture credentials (a MarketCheck key, an App Center token, an AGCO token). ' +
          'To use others, press **Authorize**, log out of a scheme and enter your own; the credentials and identifiers that work are listed at `/__mockyard/fixtures`.',
      },
      // Relative server URLs resolve against wherever this document was fetched from.
      servers: [
        { url: '/', description: 'mockyard: every area under its prefix' },
        ...opts.areas.map((a) => ({
          url: opts.prefixed ? a.prefix : '/',
          description: `Area ${a.letter}, ${a.title}: stands in for ${a.upstream}`,
        })),
      ],
      tags: [
        ...opts.areas.map((a) => ({
          name: a.name,
          description: `Area ${a.letter}: ${a.title} (real base URL ${a.upstream})`,
        })),
        { name: 'mockyard', description: 'Health, fixture catalog and test controls of mockyard itself' },
      ],
      components: {
        securitySchemes: {
          mockyardAdmin: { type: 'http', scheme: 'bearer', description: 'The --admin-token value, when one is set' },
          // The areas' real credentials, as their contracts name them.
          api_key: {
            type: 'apiKey',
            in: 'query',
            name: 'api_key',
            description: 'MarketCheck key (any non-empty key unless --marketcheck-api-keys is set)',
          },
          APIToken: {
            type: 'apiKey',
            in: 'header',
            name: 'X-API-Token',
            description: 'App Center user API token (see /__mockyard/fixtures)',
          },
          // AGCO issues tokens from POST /api/v2/Authentication and takes them as `Authorization: Bearer`;
          // an http bearer scheme gives Swagger UI a field for the token itself.
          agcoBearer: {
            type: 'http',
            scheme: 'bearer',
            description:
              'AGCO bearer token, sent as `Authorization: Bearer <token>`. Any non-empty token works unless --agco-tokens is set; see /__mockyard/fixtures.',
          },
        },
      },
    },
    // Area paths are written as the real service writes them (the server's prefix is stripped), and each
    // area's path items carry that area's own server, so a client generated from this document talks
    // to mockyard exactly as the real client talks to the real base URL.
    transformObject: (documentObject) => {
      if (!('openapiObject' in documentObject)) return documentObject.swaggerObject;
      const { openapiObject } = documentObject;
      const doc = openapiObject as { paths?: Record<string, Record<string, unknown>> };
      for (const item of Object.values(doc.paths ?? {})) {
        const tags = Object.values(item).flatMap((op) => (op as { tags?: string[] } | null)?.tags ?? []);
        const area = opts.areas.find((a) => tags.includes(a.name));
        if (area)
          item.servers = [
            {
              url: opts.prefixed ? area.prefix : '/',
              description: `Area ${area.letter}: stands in for ${area.upstream}`,
            },
          ];
      }
      applyPrefill(doc, opts.prefill());
      return openapiObject;
    },
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  await docsUi(app, () => opts.prefill().credentials);
}

export const openapiPlugin = fp(openapi, { name: 'mockyard-openapi' });
