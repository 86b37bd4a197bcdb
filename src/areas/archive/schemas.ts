// TypeBox schemas of the archive routes (mirrors a-archive.openapi.json).
import { Type, type Static } from 'typebox';

export const HtmlErrorPageSchema = Type.String({ description: 'Full HTML document, charset utf-8.' });

export const ItemFileSchema = Type.Object(
  {
    name: Type.String(),
    source: Type.Union([Type.Literal('original'), Type.Literal('derivative'), Type.Literal('metadata')]),
    format: Type.Optional(Type.String()),
    original: Type.Optional(Type.String({ description: 'Source file name for derivatives.' })),
    mtime: Type.Optional(Type.String({ pattern: '^[0-9]+$' })),
    size: Type.Optional(Type.String({ pattern: '^[0-9]+$' })),
    md5: Type.Optional(Type.String()),
    crc32: Type.Optional(Type.String()),
    sha1: Type.Optional(Type.String()),
    btih: Type.Optional(Type.String()),
    length: Type.Optional(Type.String()),
    height: Type.Optional(Type.String()),
    width: Type.Optional(Type.String()),
  },
  { additionalProperties: true, description: 'One entry of files[]; numeric values are strings.' },
);

export const ItemMetadataSchema = Type.Object(
  {
    created: Type.Optional(Type.Integer()),
    d1: Type.Optional(Type.String()),
    d2: Type.Optional(Type.String()),
    dir: Type.Optional(Type.String({ examples: ['/21/items/xfetch'] })),
    files: Type.Optional(Type.Array(ItemFileSchema)),
    files_count: Type.Optional(Type.Integer()),
    item_last_updated: Type.Optional(Type.Integer()),
    item_size: Type.Optional(Type.Integer()),
    is_dark: Type.Optional(Type.Boolean()),
    metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    reviews: Type.Optional(Type.Array(Type.Record(Type.String(), Type.Unknown()))),
    server: Type.Optional(Type.String()),
    servers_unavailable: Type.Optional(Type.Boolean()),
    uniq: Type.Optional(Type.Integer()),
    workable_servers: Type.Optional(Type.Array(Type.String())),
  },
  { additionalProperties: true, description: 'MDAPI record; {} when the item does not exist.' },
);
export type ItemMetadata = Static<typeof ItemMetadataSchema>;

export const MetadataParamsSchema = Type.Object({ identifier: Type.String({ description: 'Item identifier.' }) });

export const MetadataPathParamsSchema = Type.Object({
  identifier: Type.String({ description: 'Item identifier.' }),
  '*': Type.String({ description: 'Path inside the record, e.g. files, metadata/title, files/0/name.' }),
});

export const MetadataPathQuerySchema = Type.Object({
  start: Type.Optional(Type.String({ description: 'First array element to return (array results only).' })),
  count: Type.Optional(Type.String({ description: 'How many array elements to return (array results only).' })),
});

export const MetadataPathResultSchema = Type.Object(
  { result: Type.Optional(Type.Unknown()) },
  { description: '{"result": value}, or {} when the item or the path does not exist.' },
);

export const DownloadParamsSchema = Type.Object({
  identifier: Type.String({ description: 'Item identifier.' }),
  '*': Type.String({ description: "File name as listed in the item's files[].name; may contain sub-directories." }),
});

export const DataNodeParamsSchema = Type.Object({
  node: Type.String({ description: 'Number of the item directory on the data node (from dir in the metadata).' }),
  identifier: Type.String({ description: 'Item identifier.' }),
  '*': Type.String({ description: "File name as listed in the item's files[].name." }),
});

export const DownloadQuerySchema = Type.Object({
  cnt: Type.Optional(
    Type.String({ description: 'Sent as 0 by the official Python client to skip view counting; ignored.' }),
  ),
});

export const DownloadHeadersSchema = Type.Object({
  range: Type.Optional(Type.String({ description: 'Optional byte range, e.g. bytes=0-1023.' })),
});

const Binary = Type.String({ format: 'binary' });

export const DownloadResponses = {
  200: Binary,
  206: Binary,
  302: Type.Null({ description: 'Redirect to the data node path (redirect mode).' }),
  304: Type.Null({ description: 'Not modified (conditional request).' }),
  403: HtmlErrorPageSchema,
  404: HtmlErrorPageSchema,
  416: HtmlErrorPageSchema,
  503: HtmlErrorPageSchema,
};
