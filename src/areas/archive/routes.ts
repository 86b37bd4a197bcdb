// /metadata and /download as archive.org answers them, plus the data-node path used in redirect mode.
import path from 'node:path';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { SwaggerTransform } from '@fastify/swagger';
import type { AreaPluginOptions } from '../../platform/area.js';
import { ArchiveError } from './errors.js';
import { searchRoutes } from './search-routes.js';
import { encodeFileName, ReadAhead, sendItemFile } from './files.js';
import { dataNodeOf, ensureFileOnDisk, itemRecordJson, recordPath, resolveDownload, type FileRow } from './queries.js';
import { realHostOf } from '../../platform/hosts/real-hosts.js';
import {
  DataNodeParamsSchema,
  DownloadHeadersSchema,
  DownloadParamsSchema,
  DownloadQuerySchema,
  DownloadResponses,
  ItemMetadataSchema,
  MetadataParamsSchema,
  MetadataPathParamsSchema,
  MetadataPathQuerySchema,
  MetadataPathResultSchema,
} from './schemas.js';

const TAGS = ['archive'];
const JSON_TYPE = 'application/json';

/** Shows the wildcard under a real name (the contract's `{filename}`) in the OpenAPI document. */
function wildcardInDocs(name: string): SwaggerTransform {
  return ({ schema, url }) => {
    const params = (schema as { params?: { properties?: Record<string, unknown>; required?: string[] } }).params;
    if (!params?.properties) return { schema, url: url.replace('*', `:${name}`) };
    const { '*': wildcard, ...rest } = params.properties;
    return {
      schema: {
        ...schema,
        params: {
          ...params,
          properties: { ...rest, [name]: wildcard },
          required: [...(params.required ?? []).filter((r) => r !== '*'), name],
        },
      },
      url: url.replace('*', `:${name}`),
    } as ReturnType<SwaggerTransform>;
  };
}
const filenameInDocs = wildcardInDocs('filename');

/** Sends JSON text that is already serialised (records are stored ready to send). */
function sendJsonText(reply: FastifyReply, text: string): FastifyReply {
  return reply.type(JSON_TYPE).send(text);
}

function optionalInt(raw: string | undefined): number | undefined {
  return raw !== undefined && /^\d{1,9}$/.test(raw) ? Number(raw) : undefined;
}

/** What /download and the data-node path share: the same query, headers and answers. */
const FILE_RESPONSE_SCHEMA = {
  querystring: DownloadQuerySchema,
  headers: DownloadHeadersSchema,
  response: DownloadResponses,
};

type ArchiveApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** Streams item files: writes a file to disk when it is not there yet, then sends it. */
class FileSender {
  /** One read-ahead budget for every download of this server. */
  readonly #readAhead = new ReadAhead();

  send(request: FastifyRequest, reply: FastifyReply, identifier: string, file: FileRow) {
    const dir = path.join(request.store.filesDir, 'archive', identifier);
    ensureFileOnDisk(request.store, identifier, dir, file);
    return sendItemFile(request, reply, dir, file, this.#readAhead);
  }
}

export async function archiveRoutes(instance: FastifyInstance, opts: AreaPluginOptions): Promise<void> {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  await searchRoutes(app, opts.config);
  metadataRoutes(app);
  downloadRoutes(app, opts, new FileSender());
}

/** getItemMetadata and getItemMetadataPath: records are stored as JSON text, ready to send. */
function metadataRoutes(app: ArchiveApp): void {
  app.get(
    '/metadata/:identifier',
    {
      schema: {
        operationId: 'getItemMetadata',
        tags: TAGS,
        summary: "Read an item's full metadata record including its file list",
        description:
          'An unknown identifier answers `{}` with status 200, as archive.org does. A trailing slash is accepted.',
        params: MetadataParamsSchema,
        response: { 200: ItemMetadataSchema },
      },
    },
    async (request, reply) => sendJsonText(reply, itemRecordJson(request.store, request.params.identifier) ?? '{}'),
  );

  app.get(
    '/metadata/:identifier/*',
    {
      schema: {
        operationId: 'getItemMetadataPath',
        tags: TAGS,
        summary: 'Read one part of an item record (files, metadata, metadata/title, files/0/name)',
        description:
          'Answers `{"result": value}`; `start` and `count` page through an array. Unknown item or path: `{}`.',
        params: MetadataPathParamsSchema,
        querystring: MetadataPathQuerySchema,
        response: { 200: MetadataPathResultSchema },
      },
      config: { swaggerTransform: wildcardInDocs('path') },
    },
    async (request, reply) => {
      const record = itemRecordJson(request.store, request.params.identifier);
      const segments = request.params['*'].split('/').filter((s) => s !== '');
      if (record === undefined) return sendJsonText(reply, '{}');
      if (segments.length === 0) return sendJsonText(reply, record);
      const found = recordPath(record, segments, optionalInt(request.query.start), optionalInt(request.query.count));
      return sendJsonText(reply, found === null ? '{}' : JSON.stringify(found));
    },
  );
}

/** downloadItemFile (or its redirect) and downloadItemFileFromDataNode, the redirect's target. */
function downloadRoutes(app: ArchiveApp, { config }: AreaPluginOptions, files: FileSender): void {
  // '' when the area has its own port, '/archive' on the shared one.
  const prefix = app.prefix;
  app.get(
    '/download/:identifier/*',
    {
      schema: {
        operationId: 'downloadItemFile',
        tags: TAGS,
        summary: 'Fetch one file of an item (GET or HEAD)',
        description:
          'Streams the file with Range (206/416), ETag and Last-Modified (304) support. Errors are HTML pages: 404 missing item or file, 403 dark item, 503 unavailable item. ' +
          'With --archive-redirect it answers 302 to the data-node path /{n}/items/{identifier}/{filename} instead.',
        params: DownloadParamsSchema,
        ...FILE_RESPONSE_SCHEMA,
      },
      config: { swaggerTransform: filenameInDocs },
    },
    async (request, reply) => {
      const { identifier, '*': name } = request.params;
      const found = resolveDownload(request.store, identifier, name);
      if (!config.archiveRedirect) {
        if (!found.ok) throw new ArchiveError(found.status);
        return files.send(request, reply, identifier, found.file);
      }
      // Like the front end: the data node itself refuses dark items, so those are redirected too.
      if (!found.ok && found.status !== 403) throw new ArchiveError(found.status);
      const node = found.item!.node;
      const nodePath = `/${node}/items/${encodeURIComponent(identifier)}/${encodeFileName(name)}`;
      // Under archive.org's own name the hop goes to the item's data node, https://{server}{dir}/{file},
      // which the client then reaches through the same proxy.
      const server = realHostOf(request.raw) ? dataNodeOf(request.store, identifier) : undefined;
      const location = server
        ? `https://${server}${nodePath}`
        : `${request.protocol}://${request.host}${prefix}${nodePath}`;
      return reply.header('access-control-allow-origin', '*').redirect(location, 302);
    },
  );

  app.get(
    '/:node/items/:identifier/*',
    {
      schema: {
        operationId: 'downloadItemFileFromDataNode',
        tags: TAGS,
        summary: "Fetch one file from the item's data-node path (the target of the /download redirect)",
        params: DataNodeParamsSchema,
        ...FILE_RESPONSE_SCHEMA,
      },
      config: { swaggerTransform: filenameInDocs },
    },
    async (request, reply) => {
      const { node, identifier, '*': name } = request.params;
      const found = resolveDownload(request.store, identifier, name);
      // An item lives on one node directory only; elsewhere it does not exist.
      if (found.item && String(found.item.node) !== node) throw new ArchiveError(404);
      if (!found.ok) throw new ArchiveError(found.status);
      return files.send(request, reply, identifier, found.file);
    },
  );
}
