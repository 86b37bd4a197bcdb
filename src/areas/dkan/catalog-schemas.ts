// TypeBox schemas of the metastore, search, SQL and import-summary routes (documentation and the OpenAPI
// document; values are read by their modules, which answer in DKAN's own error body).
import { Type } from 'typebox';
import { ErrorSchema } from './schemas.js';

const Json = Type.Record(Type.String(), Type.Unknown());

export const SchemaParamsSchema = Type.Object({
  schemaId: Type.String({ description: 'Metastore schema: dataset, distribution, keyword, theme or publisher.' }),
});
export const ItemParamsSchema = Type.Object({
  schemaId: SchemaParamsSchema.properties.schemaId,
  identifier: Type.String({ description: 'Item identifier (a dataset or distribution UUID), case-sensitive.' }),
});

const referenceFlags = {
  'show-reference-ids': Type.Optional(
    Type.String({
      description:
        'Present (any value, even empty): referenced properties (theme, keyword, publisher, distribution) as {identifier, data}.',
    }),
  ),
  show_reference_ids: Type.Optional(Type.String({ description: 'Same as show-reference-ids.' })),
};
export const MetastoreQuerystringSchema = Type.Object(referenceFlags);

export const metastoreItemResponses = {
  200: {
    description: 'A DCAT-US dataset (or the item of another schema)',
    content: { 'application/json': { schema: Json } },
  },
  404: ErrorSchema,
};
export const metastoreListResponses = {
  200: { description: 'Every item of the schema', content: { 'application/json': { schema: Type.Array(Json) } } },
  404: ErrorSchema,
};

export const SearchQuerystringSchema = Type.Object(
  {
    fulltext: Type.Optional(Type.String({ description: 'Words matched in title and description; all must match.' })),
    page: Type.Optional(Type.String({ default: '1', description: 'Page number (numeric; else a 400).' })),
    'page-size': Type.Optional(Type.String({ default: '10', description: 'Results per page; above 100 means 100.' })),
    sort: Type.Optional(Type.String({ description: 'Comma-separated index fields: title, modified, keyword, ...' })),
    'sort-order': Type.Optional(Type.String({ description: 'Comma-separated asc|desc, one per sort field.' })),
    facets: Type.Optional(
      Type.String({ description: 'Facet types to return (theme, keyword, publisher__name); 0 or empty: none.' }),
    ),
    theme: Type.Optional(Type.String({ description: 'Comma-separated themes; every one must match.' })),
    keyword: Type.Optional(Type.String({ description: 'Comma-separated keywords; every one must match.' })),
    publisher__name: Type.Optional(Type.String({ description: 'Publisher name.' })),
  },
  { additionalProperties: true },
);

const Facet = Type.Object({ type: Type.String(), name: Type.String(), total: Type.Integer() });
export const searchResponses = {
  200: {
    description: 'Matching datasets keyed dkan_dataset/<id> ([] when none), their total, and facets',
    content: {
      'application/json': {
        schema: Type.Object({
          total: Type.Integer(),
          results: Type.Union([Type.Record(Type.String(), Json), Type.Array(Json)]),
          facets: Type.Optional(Type.Array(Facet)),
        }),
      },
    },
  },
  400: ErrorSchema,
};

export const SqlQuerystringSchema = Type.Object({
  query: Type.Optional(
    Type.String({
      description:
        'DKAN bracket SQL: [SELECT *|COUNT(*)|a,b FROM <distribution id>][WHERE a = "x" AND b = "y"][ORDER BY a,b ASC|DESC][LIMIT n OFFSET m]; (single spaces, upper-case keywords).',
    }),
  ),
  show_db_columns: Type.Optional(
    Type.String({ description: 'Present (any value): machine column names and record_number.' }),
  ),
  'show-db-columns': Type.Optional(Type.String({ description: 'Same as show_db_columns (deprecated by DKAN).' })),
});
export const SqlBodySchema = Type.Object(
  {
    query: Type.Optional(Type.String({ description: 'The bracket SQL statement.' })),
    show_db_columns: Type.Optional(Type.Boolean({ description: 'Machine column names and record_number.' })),
  },
  { description: 'JSON body (read whatever the Content-Type).' },
);
export const sqlResponses = {
  200: {
    description: 'The rows as objects keyed by column description (or machine name); COUNT(*) gives [{expression}]',
    content: {
      'application/json': { schema: Type.Array(Type.Record(Type.String(), Type.Union([Type.String(), Type.Null()]))) },
    },
  },
  400: ErrorSchema,
};

export const ImportParamsSchema = Type.Object({
  identifier: Type.String({ description: 'Distribution id, or its resource id (<id>__<version>).' }),
});
export const importResponses = {
  200: {
    description: 'The datastore table: its columns (with record_number), their count and the row count',
    content: {
      'application/json': {
        schema: Type.Object({
          numOfColumns: Type.Integer(),
          columns: Json,
          numOfRows: Type.Optional(Type.Integer({ description: 'Left out for an empty table (array_filter).' })),
        }),
      },
    },
  },
  404: ErrorSchema,
};
