// TypeBox schemas of the two query routes (documentation and serialisation of error bodies).
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
    schema: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'Column schema keyed by distribution id' })),
    query: Type.Record(Type.String(), Type.Unknown(), { description: 'The normalised query, defaults and resources filled in' }),
  },
  { description: 'Keys appear only when their flag is true; query always.' },
);

const Sort = Type.Object({ property: Type.String(), order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])) });

/** Real parameter names; values are checked by the query parser, which answers in DKAN's own 400 body. */
export const QuerystringSchema = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, default: 500, description: 'Rows to return; maximum 10000 (--dkan-max-limit); above it a 400.' })),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0, description: 'Rows to skip.' })),
  conditions: Type.Optional(
    Type.String({
      description: `Filters. DKAN's bracket form conditions[0][property]=state&conditions[0][value]=AL&conditions[0][operator]== (groups: conditions[0][groupOperator]=or&conditions[0][conditions][0][...]), or the whole array as JSON text. Operators: ${OPERATORS.join(', ')}.`,
    }),
  ),
  sort: Type.Optional(Type.String({ description: 'SPEC.md form: <field> or <field> <asc|desc>, several comma-separated.' })),
  sorts: Type.Optional(
    Type.Array(Sort, {
      description:
        'DKAN form: sorts[0][property]=x&sorts[0][order]=desc. Each item may also be sent as JSON text, sorts={"property":"x","order":"desc"} (what Swagger UI sends), or the whole array as JSON text. Default order: record_number.',
    }),
  ),
  properties: Type.Optional(Type.Array(Type.String(), { description: 'Columns to return: properties[]=a&properties[]=b.' })),
  groupings: Type.Optional(Type.Array(Type.String(), { description: 'Columns to GROUP BY.' })),
  count: Type.Optional(Type.Boolean({ default: true, description: 'Include the total matching row count.' })),
  results: Type.Optional(Type.Boolean({ default: true, description: 'Include the result rows.' })),
  schema: Type.Optional(Type.Boolean({ default: true, description: 'Include the column schema keyed by distribution id.' })),
  keys: Type.Optional(Type.Boolean({ default: true, description: 'Rows as objects (true) or value arrays (false).' })),
  format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('csv')], { default: 'json' })),
  rowIds: Type.Optional(Type.Boolean({ default: false, description: 'Also return record_number.' })),
});

export const DatasetIndexParamsSchema = Type.Object({
  datasetId: Type.String({ description: 'Dataset identifier, case-sensitive.' }),
  index: Type.Integer({ minimum: 0, description: 'Resource position; 0 is the primary resource. Unknown or non-numeric: 404.' }),
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
