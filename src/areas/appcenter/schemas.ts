// TypeBox schemas of releases_list, named and typed as in App Center's OpenAPI document.
import { Type, type Static } from 'typebox';

export const ReleasesParamsSchema = Type.Object({
  owner_name: Type.String({ description: 'Owner (user or organization) name.' }),
  app_name: Type.String({ description: 'App name.' }),
});
export type ReleasesParams = Static<typeof ReleasesParamsSchema>;

// Real types, so /openapi.json reads like the upstream document; values that do not parse become a
// 400 naming the parameter in the area's error handler.
export const ReleasesQuerySchema = Type.Object({
  published_only: Type.Optional(
    Type.Boolean({
      description:
        'When true, drop releases that were uploaded but never distributed (releases distributed only to groups deleted since are kept).',
    }),
  ),
  scope: Type.Optional(
    Type.String({
      description: 'tester: only releases distributed to a live group the caller belongs to. Other values: no scope.',
    }),
  ),
  top: Type.Optional(Type.Integer({ minimum: 1, description: 'Maximum number of releases to return.' })),
  releaseId: Type.Optional(
    Type.Number({ description: 'Return only the release with this id (empty array when the app has none).' }),
  ),
});
export type ReleasesQuery = Static<typeof ReleasesQuerySchema>;

export const ReleasesHeadersSchema = Type.Object({
  'x-api-token': Type.Optional(
    Type.String({ description: 'User API token (X-API-Token). See GET /__mockyard/fixtures for the tokens.' }),
  ),
});

const GroupSchema = Type.Object({
  id: Type.String(),
  name: Type.Optional(Type.String()),
  is_latest: Type.Optional(Type.Boolean()),
});
const StoreType = Type.Union([
  Type.Literal('intune'),
  Type.Literal('googleplay'),
  Type.Literal('apple'),
  Type.Literal('none'),
]);
const DestinationType = Type.Union([Type.Literal('group'), Type.Literal('store'), Type.Literal('tester')]);
const StoreSchema = Type.Object({
  id: Type.String(),
  name: Type.Optional(Type.String()),
  type: Type.Optional(StoreType),
  publishing_status: Type.Optional(Type.String()),
  is_latest: Type.Optional(Type.Boolean()),
});
const DestinationSchema = Type.Object({
  id: Type.String(),
  name: Type.Optional(Type.String()),
  is_latest: Type.Optional(Type.Boolean()),
  type: Type.Optional(StoreType),
  publishing_status: Type.Optional(Type.String()),
  destination_type: Type.Optional(DestinationType),
  display_name: Type.Optional(Type.String()),
});

export const BasicReleaseDetailsResponseSchema = Type.Object(
  {
    id: Type.Integer(),
    version: Type.String({ description: 'CFBundleVersion or android:versionCode.' }),
    short_version: Type.String({ description: 'CFBundleShortVersionString or android:versionName.' }),
    origin: Type.Optional(Type.Union([Type.Literal('hockeyapp'), Type.Literal('appcenter')])),
    uploaded_at: Type.String({ description: 'ISO 8601 UTC upload time.' }),
    enabled: Type.Boolean(),
    is_external_build: Type.Optional(Type.Boolean()),
    file_extension: Type.Optional(Type.String()),
    destination_type: Type.Optional(DestinationType),
    distribution_groups: Type.Optional(Type.Array(GroupSchema)),
    distribution_stores: Type.Optional(Type.Array(StoreSchema)),
    destinations: Type.Optional(Type.Array(DestinationSchema)),
    build: Type.Optional(
      Type.Object({
        branch_name: Type.Optional(Type.String()),
        commit_hash: Type.Optional(Type.String()),
        commit_message: Type.Optional(Type.String()),
      }),
    ),
  },
  { description: 'Basic information on a release.' },
);
export type BasicReleaseDetailsResponse = Static<typeof BasicReleaseDetailsResponseSchema>;

export const ReleasesResponseSchema = Type.Array(BasicReleaseDetailsResponseSchema);

export const GatewayErrorSchema = Type.Object(
  { message: Type.String(), statusCode: Type.Integer(), code: Type.String() },
  { description: 'App Center gateway error: message ends with "Correlation ID: <uuid>".' },
);
