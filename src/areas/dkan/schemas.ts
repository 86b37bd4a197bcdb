// TypeBox schemas of the DKAN query routes (documentation and the OpenAPI document; the query parser is the truth).
import { Type } from 'typebox';
import { OPERATORS } from './parse.js';

export const ErrorSchema = Type.Object(
  {
    message: Type.String(),
    status: Type.Optional(Type.Integer()),
    timestamp: Type.Optional(Type.String({ format: 'date-time' })),
    data: Type.Optional(Type.Object({ keyword: Type.String(), pointer: Type.String(), message: Type.String() })),
  },
  { description: 'DKAN error body; "No resource found" 404s carry only message.' },
);

const Cell = Type.Union([Type.String(), Type.Null()]);

export const QueryResponseSchema = Type.Object(
  {
    results: Type.Optional(Type.Array(Type.Union([Type.Record(Type.String(), Cell), Type.Array(Cell)]))),
    count: Type.Optional(Type.Integer({ description: 'Rows matching the conditions, regardless of limit and offset' })),
    schema: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: 'Table schema of each queried resource, keyed by distribution id',
      }),
    ),
    query: Type.Record(Type.String(), Type.Unknown(), {
      description: 'The query as sent, with defaults, resources and properties filled in',
    }),
  },
  { description: 'Keys appear only when their flag is true; query always.' },
);

const Sort = Type.Object({ property: Type.String(), order: Type.Union([Type.Literal('asc'), Type.Literal('desc')]) });

/** Real parameter names; values are checked by the query parser, which answers in DKAN's own 400 body. */
const queryParameters = {
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      default: 500,
      description: 'Rows to return; maximum 10000 (--dkan-max-limit); above it a 400.',
    }),
  ),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0, description: 'Rows to skip.' })),
  conditions: Type.Optional(
    Type.String({
      description: `Filters. DKAN's bracket form conditions[0][property]=state&conditions[0][value]=AL&conditions[0][operator]== (groups: conditions[0][groupOperator]=or&conditions[0][conditions][0][...]), or the whole array as JSON text. Operators (lower case): ${OPERATORS.join(', ')}.`,
    }),
  ),
  sort: Type.Optional(
    Type.String({ description: 'mockyard shorthand: <field> or <field> <asc|desc>, several comma-separated.' }),
  ),
  sorts: Type.Optional(
    Type.Array(Sort, {
      description:
        'DKAN form: sorts[0][property]=x&sorts[0][order]=desc (order required, lower case). Each item may also be sent as JSON text, sorts={"property":"x","order":"desc"} (what Swagger UI sends), or the whole array as JSON text. Default order: record_number.',
    }),
  ),
  properties: Type.Optional(
    Type.Array(Type.String(), {
      description:
        'Columns to return: properties[]=a&properties[]=b; also {resource, property, alias} and {expression: {operator, operands}, alias} (sum, count, avg, min, max, + - * / %).',
    }),
  ),
  groupings: Type.Optional(
    Type.Array(Type.String(), { description: 'Columns to GROUP BY; every plain property must be one of them.' }),
  ),
  count: Type.Optional(Type.Boolean({ default: true, description: 'Include the total matching row count.' })),
  results: Type.Optional(Type.Boolean({ default: true, description: 'Include the result rows.' })),
  schema: Type.Optional(
    Type.Boolean({ default: true, description: 'Include the table schema keyed by distribution id.' }),
  ),
  keys: Type.Optional(Type.Boolean({ default: true, description: 'Rows as objects (true) or value arrays (false).' })),
  format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('csv')], { default: 'json' })),
  rowIds: Type.Optional(
    Type.Boolean({ default: false, description: 'Also return record_number (not with properties).' }),
  ),
};

export const QuerystringSchema = Type.Object(queryParameters);

const multiParameters = {
  resources: Type.Optional(
    Type.Array(Type.Object({ id: Type.String(), alias: Type.String() }), {
      description: 'resources[0][id]=<distribution id>&resources[0][alias]=t; the first is the primary resource.',
    }),
  ),
  joins: Type.Optional(
    Type.Array(Type.Object({ resource: Type.String(), condition: Type.Object({}) }), {
      description: 'One join per further resource: joins[0][resource]=l&joins[0][condition][resource]=t&...',
    }),
  ),
};

export const MultiQuerystringSchema = Type.Object({ ...queryParameters, ...multiParameters });

const { results: _results, ...downloadParameters } = queryParameters;
export const DownloadQuerystringSchema = Type.Object({
  ...downloadParameters,
  schema: Type.Optional(
    Type.Boolean({
      default: true,
      description:
        'false leaves the CSV without a header: its only row is DKAN\'s "Could not generate header for CSV."',
    }),
  ),
  format: Type.Literal('csv', { description: 'Only csv can be streamed; anything else is a 400.' }),
  limit: Type.Optional(Type.Integer({ minimum: 1, description: 'Rows to stream; default all.' })),
});

export const DatasetIndexParamsSchema = Type.Object({
  datasetId: Type.String({ description: 'Dataset identifier, case-sensitive.' }),
  index: Type.Integer({
    minimum: 0,
    description: 'Resource position; 0 is the primary resource. Unknown or non-numeric: 404.',
  }),
});

export const DistributionParamsSchema = Type.Object({
  distributionId: Type.String({ description: 'Distribution (resource) identifier.' }),
});

export const responses = {
  200: {
    description: 'Query result',
    content: { 'application/json': { schema: QueryResponseSchema }, 'text/csv': { schema: Type.String() } },
  },
  400: ErrorSchema,
  404: ErrorSchema,
};

export const downloadResponses = {
  200: {
    description: 'The rows as CSV, streamed: a header row, then every row',
    content: { 'text/csv': { schema: Type.String() } },
  },
  400: ErrorSchema,
  404: ErrorSchema,
};

export const MultiDownloadQuerystringSchema = Type.Object({
  ...DownloadQuerystringSchema.properties,
  ...multiParameters,
});
