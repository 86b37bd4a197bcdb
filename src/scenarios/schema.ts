// The JSON Schema of a scenario body (published in /openapi.json): records written as the real services return them.
import { Type, type Static } from 'typebox';
import { STATES } from '../areas/agco/schemas.js';

/** `{name}` of /__mockyard/scenarios/{name} and of the /scenarios/{name} path prefix. */
export const SCENARIO_NAME = /^[A-Za-z0-9._-]{1,64}$/;
export const ScenarioNameSchema = Type.String({
  pattern: '^[A-Za-z0-9._-]{1,64}$',
  description: 'Scenario name: [A-Za-z0-9._-]{1,64}',
});

/** Documented limits. */
export const SCENARIO_LIMITS = {
  /** Scenarios held at once. */
  scenarios: 100,
  /** Bytes of one JSON body. */
  bodyBytes: 20 * 1024 * 1024,
  /** Bytes of one archive file given by `size`. */
  fileBytes: 64 * 1024 * 1024,
  /** Bytes of all archive files of one scenario. */
  archiveBytes: 256 * 1024 * 1024,
  /** Bytes all scenarios hold together on disk (databases and archive files). */
  totalBytes: 512 * 1024 * 1024,
} as const;

const Text = (description?: string) =>
  Type.String({ minLength: 1, maxLength: 1024, ...(description ? { description } : {}) });
const List = <T extends Parameters<typeof Type.Array>[0]>(items: T, description: string) =>
  Type.Array(items, { description });
const closed = { additionalProperties: false } as const;

// ---- App Center ----
const ReleaseGroupRefSchema = Type.Object({
  name: Text("Names one of the app's groups"),
  id: Type.Optional(Type.String({ description: 'Assigned (stable per owner/app/group) when missing' })),
  is_latest: Type.Optional(Type.Boolean({ description: 'Ignored: computed from the releases, as for generated data' })),
});
const ReleaseStoreRefSchema = Type.Object({
  name: Text('Store name; stores are made from the names releases use'),
  id: Type.Optional(Type.String()),
  type: Type.Optional(
    Type.Union(
      ['intune', 'googleplay', 'apple', 'none'].map((t) => Type.Literal(t)),
      { description: 'Default googleplay' },
    ),
  ),
  publishing_status: Type.Optional(Type.String({ description: 'Default Published' })),
  is_latest: Type.Optional(Type.Boolean({ description: 'Ignored: computed' })),
});
export const ScenarioReleaseSchema = Type.Object(
  {
    id: Type.Integer({ minimum: 1, maximum: 2147483647 }),
    version: Type.String({ maxLength: 256 }),
    short_version: Type.String({ maxLength: 256 }),
    uploaded_at: Type.String({ description: 'ISO 8601 time; sent back as YYYY-MM-DDTHH:MM:SS.sssZ' }),
    enabled: Type.Optional(Type.Boolean({ description: 'Default true' })),
    origin: Type.Optional(Type.Union([Type.Literal('hockeyapp'), Type.Literal('appcenter')])),
    is_external_build: Type.Optional(Type.Boolean()),
    file_extension: Type.Optional(Type.String({ maxLength: 32 })),
    build: Type.Optional(
      Type.Object({
        branch_name: Type.Optional(Type.String()),
        commit_hash: Type.Optional(Type.String()),
        commit_message: Type.Optional(Type.String()),
      }),
    ),
    distribution_groups: Type.Optional(
      List(
        ReleaseGroupRefSchema,
        'Groups the release was distributed to; none (or missing) means uploaded but never distributed',
      ),
    ),
    distribution_stores: Type.Optional(List(ReleaseStoreRefSchema, 'Stores the release was published to')),
  },
  {
    description:
      'A release as releases_list returns it (BasicReleaseDetailsResponse). destinations, destination_type and is_latest are computed; other fields are ignored.',
  },
);
const AppcenterSchema = Type.Object(
  {
    users: Type.Optional(
      List(
        Type.Object(
          {
            name: Text(),
            token: Type.Optional(
              Type.String({ minLength: 1, maxLength: 256, description: 'X-API-Token value of this user' }),
            ),
            groups: Type.Optional(
              List(
                Type.String({ pattern: '^[^/]+/[^/]+/.+$' }),
                '"owner/app/Group": distribution groups this user is a member of',
              ),
            ),
            display_name: Type.Optional(Type.String()),
            email: Type.Optional(Type.String()),
          },
          closed,
        ),
        'Users and their API tokens',
      ),
    ),
    organizations: Type.Optional(
      List(
        Type.Object(
          { name: Text(), display_name: Type.Optional(Type.String()), members: List(Text(), 'User names') },
          closed,
        ),
        'Organizations that own apps; their members see every app of the organization',
      ),
    ),
    apps: Type.Optional(
      List(
        Type.Object(
          {
            owner: Text('A user (who then sees the app) or an organization'),
            name: Text(),
            os: Type.Optional(Type.Union([Type.Literal('iOS'), Type.Literal('Android'), Type.Literal('Windows')])),
            groups: Type.Optional(
              List(
                Type.Object(
                  {
                    name: Text(),
                    id: Type.Optional(Type.String()),
                    deleted: Type.Optional(
                      Type.Boolean({
                        description:
                          'A deleted group: releases sent to it count as distributed, but it is not shown and gives no access',
                      }),
                    ),
                    members: Type.Optional(List(Text(), 'User names')),
                  },
                  closed,
                ),
                'Distribution groups',
              ),
            ),
            releases: Type.Optional(List(ScenarioReleaseSchema, 'Releases as releases_list returns them')),
          },
          closed,
        ),
        'Apps with their groups and releases',
      ),
    ),
  },
  closed,
);

// ---- AGCO ----
const AgcoTranslationSchema = Type.Object({
  LanguageId: Type.Integer({ minimum: 1, maximum: 2147483647 }),
  StringValue: Type.String({ maxLength: 65536 }),
  State: Type.Optional(
    Type.Union(
      STATES.map((s) => Type.Literal(s)),
      { description: 'Default Validated' },
    ),
  ),
  AuthorId: Type.Optional(Type.Integer({ description: 'Default 1' })),
  StringId: Type.Optional(Type.String({ description: "Ignored: the definition's Id" })),
  Timestamp: Type.Optional(Type.String({ description: 'base64 of 8 bytes; assigned in order when missing' })),
});
const AgcoSchema = Type.Object(
  {
    tokens: Type.Optional(
      List(
        Type.String({ minLength: 1, maxLength: 1024 }),
        'The only bearer tokens accepted in this scenario (default: as configured)',
      ),
    ),
    languages: Type.Optional(
      List(
        Type.Object({
          LocaleId: Type.Integer({ minimum: 1, maximum: 2147483647 }),
          Description: Type.Optional(Type.String()),
          IsDeleted: Type.Optional(Type.Boolean()),
        }),
        'Languages; a LanguageId used by a translation but not listed here is a live language',
      ),
    ),
    definitions: Type.Optional(
      List(
        Type.Object({
          Id: Text(),
          DescriptionForTranslator: Type.Optional(Type.String({ maxLength: 65536 })),
          DoNotTranslate: Type.Optional(Type.Boolean()),
          ParameterCount: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })),
          Timestamp: Type.Optional(Type.String({ description: 'base64 of 8 bytes; assigned in order when missing' })),
          Translations: Type.Optional(List(AgcoTranslationSchema, 'Translations with LanguageId and StringValue')),
        }),
        'StringDefinition objects as the API returns them',
      ),
    ),
  },
  closed,
);

// ---- MarketCheck ----
const MarketcheckSchema = Type.Object(
  {
    apiKeys: Type.Optional(
      List(
        Type.String({ minLength: 1, maxLength: 1024 }),
        'The only api_key values accepted in this scenario (default: as configured)',
      ),
    ),
    listings: Type.Optional(
      List(
        Type.Object({
          make: Text(),
          model: Text(),
          car_type: Type.Union([Type.Literal('new'), Type.Literal('used')]),
          country: Type.Optional(
            Type.Union(
              ['us', 'ca', 'US', 'CA'].map((c) => Type.Literal(c)),
              { description: 'Default us' },
            ),
          ),
          state: Type.String({ pattern: '^[A-Za-z]{2}$', description: 'State or province code' }),
          city: Text(),
          price: Type.Number({ minimum: 0 }),
          miles: Type.Number({ minimum: 0 }),
          dom: Type.Number({ minimum: 0, description: 'Days on market' }),
        }),
        'Listings; national, state and city rankings are computed from them',
      ),
    ),
  },
  closed,
);

// ---- Internet Archive ----
const ArchiveFileSchema = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 1024,
      description: 'May contain / (a sub-folder); never .. or a leading /',
    }),
    content: Type.Optional(Type.String({ description: 'The bytes as UTF-8 text' })),
    base64: Type.Optional(Type.String({ description: 'The bytes as base64' })),
    size: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: SCENARIO_LIMITS.fileBytes,
        description: 'Deterministic bytes of this length',
      }),
    ),
    format: Type.Optional(Type.String({ description: 'Default from the extension, e.g. Text PDF, JPEG, Unknown' })),
    source: Type.Optional(
      Type.Union([Type.Literal('original'), Type.Literal('derivative'), Type.Literal('metadata')], {
        description: 'Default original',
      }),
    ),
    mtime: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 4102444800,
        description: 'Seconds since 1970; default 2025-12-31T00:00:00Z',
      }),
    ),
  },
  { description: 'Exactly one of content, base64 or size. size, md5, crc32 and sha1 are computed from the bytes.' },
);
const ArchiveSchema = Type.Object(
  {
    items: Type.Optional(
      List(
        Type.Object(
          {
            identifier: Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$' }),
            metadata: Type.Optional(
              Type.Record(Type.String(), Type.Union([Type.String(), Type.Array(Type.String())]), {
                description: "The item's metadata (identifier is set; mediatype defaults to data)",
              }),
            ),
            files: Type.Optional(List(ArchiveFileSchema, "The item's files")),
            dark: Type.Optional(Type.Boolean({ description: 'Downloads answer 403, the record is the dark record' })),
            unavailable: Type.Optional(
              Type.Boolean({ description: 'Downloads answer 503, the record has servers_unavailable' }),
            ),
          },
          closed,
        ),
        'Items',
      ),
    ),
  },
  closed,
);

// ---- DKAN ----
const Cell = Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]);
const DkanSchema = Type.Object(
  {
    datasets: Type.Optional(
      List(
        Type.Object(
          {
            id: Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$' }),
            title: Type.Optional(Type.String()),
            resources: List(
              Type.Object(
                {
                  title: Type.Optional(Type.String()),
                  columns: Type.Optional(
                    List(
                      Type.String({ minLength: 1, maxLength: 256 }),
                      'Column headers (needed for rows given as arrays; default: the keys of the row objects)',
                    ),
                  ),
                  rows: Type.Optional(
                    List(
                      Type.Union([Type.Array(Cell), Type.Record(Type.String(), Cell)]),
                      'Rows as arrays (in column order) or objects',
                    ),
                  ),
                  csv: Type.Optional(Type.String({ description: 'CSV text with a header row' })),
                },
                closed,
              ),
              'Resources (index 0, 1, ...); each has exactly one of rows or csv',
            ),
          },
          closed,
        ),
        'Datasets; column names and types are made as for --dkan-csv-dir',
      ),
    ),
  },
  closed,
);

export const ScenarioBodySchema = Type.Object(
  {
    appcenter: Type.Optional(AppcenterSchema),
    agco: Type.Optional(AgcoSchema),
    marketcheck: Type.Optional(MarketcheckSchema),
    archive: Type.Optional(ArchiveSchema),
    dkan: Type.Optional(DkanSchema),
    stubs: Type.Optional(
      Type.Array(Type.Object({}, { additionalProperties: true }), {
        maxItems: 10_000,
        description:
          'WireMock 3 stub mappings that answer only in requests made in this scenario, before its areas (docs/stubs.md)',
      }),
    ),
    mappings: Type.Optional(
      Type.Array(Type.Object({}, { additionalProperties: true }), {
        maxItems: 10_000,
        description: "The same as stubs, under the name of WireMock's own import format",
      }),
    ),
  },
  {
    ...closed,
    description:
      'A scenario: records per area. An area named here answers from these records only (in requests made in the scenario); other areas keep the generated data.',
  },
);
export type ScenarioBody = Static<typeof ScenarioBodySchema>;
