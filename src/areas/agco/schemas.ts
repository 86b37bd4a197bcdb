// TypeBox schemas of AGCO's StringDefinitions operation, with the real parameter and field names.
import { Type, type Static } from 'typebox';

export const STATES = [
  'Original',
  'Requested',
  'Processing',
  'Processed',
  'Validated',
  'Invalidated',
  'RequestPending',
  'CreatePending',
] as const;

export const QuerySchema = Type.Object({
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 2147483647,
      description: 'Page size, default 10; ignored when stringIds is given.',
    }),
  ),
  modifiedAfterTimestamp: Type.Optional(
    Type.String({
      description: 'Only definitions whose Timestamp is greater: base64 of an 8-byte row version, e.g. AAAAAAAAB9E=.',
    }),
  ),
  includeTranslations: Type.Optional(
    Type.Boolean({ description: 'Embed Translations in each definition; default false.' }),
  ),
  stringText: Type.Optional(
    Type.String({
      description: 'Match translation text; * at the start and/or end is a wildcard. Needs includeTranslations=true.',
    }),
  ),
  descriptionText: Type.Optional(
    Type.String({ description: 'Match DescriptionForTranslator; * at the start and/or end is a wildcard.' }),
  ),
  useFullText: Type.Optional(
    Type.Boolean({
      description: 'Full-text search (words, trailing * for prefixes) for stringText and descriptionText.',
    }),
  ),
  includeDeletedLanguages: Type.Optional(
    Type.Boolean({
      description: 'Include translations in deleted languages; needs includeTranslations=true; default false.',
    }),
  ),
  languageIds: Type.Optional(
    Type.String({
      description: 'Comma list of language ids (LocaleId) to keep in Translations; needs includeTranslations=true.',
    }),
  ),
  stringIds: Type.Optional(
    Type.String({
      description:
        'Comma list of up to 40 ids; not combinable with modifiedAfterTimestamp, stringText, descriptionText, useFullText.',
    }),
  ),
  matchingTranslationsOnly: Type.Optional(
    Type.Boolean({
      description:
        'false returns all translations of matched definitions; needs stringText and includeTranslations=true.',
    }),
  ),
});
export type Query = Static<typeof QuerySchema>;

export const BOOLEAN_PARAMS = [
  'includeTranslations',
  'useFullText',
  'includeDeletedLanguages',
  'matchingTranslationsOnly',
] as const;

export const HeadersSchema = Type.Object({
  authorization: Type.Optional(Type.String({ description: 'Bearer <token>' })),
  accept: Type.Optional(
    Type.String({ description: 'application/json (default), text/json, application/xml or text/xml' }),
  ),
});

export const StringTranslationSchema = Type.Object({
  AuthorId: Type.Integer(),
  LanguageId: Type.Integer(),
  State: Type.Union(STATES.map((s) => Type.Literal(s))),
  StringId: Type.String(),
  StringValue: Type.String(),
  Timestamp: Type.String({ format: 'byte' }),
});
export type StringTranslation = Static<typeof StringTranslationSchema>;

export const StringDefinitionSchema = Type.Object({
  Id: Type.String(),
  DescriptionForTranslator: Type.String(),
  DoNotTranslate: Type.Boolean(),
  ParameterCount: Type.Integer(),
  Timestamp: Type.String({ format: 'byte' }),
  Translations: Type.Optional(Type.Array(StringTranslationSchema)),
});
export type StringDefinition = Static<typeof StringDefinitionSchema>;

export const MetadataSchema = Type.Object({
  TotalCount: Type.Integer(),
  Limit: Type.Integer(),
  Offset: Type.Integer(),
});

export const PagedResponseSchema = Type.Object({
  Entities: Type.Array(StringDefinitionSchema),
  Metadata: MetadataSchema,
});
export type PagedResponse = Static<typeof PagedResponseSchema>;

export const ApiErrorSchema = Type.Object({
  ErrorCode: Type.Integer(),
  UserMessage: Type.String(),
  DeveloperMessage: Type.String(),
  MoreInfo: Type.String(),
});
export type ApiError = Static<typeof ApiErrorSchema>;
