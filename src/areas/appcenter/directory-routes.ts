// The operations an App Center client calls around releases_list (apps, user, groups, one release), named as in
// App Center's OpenAPI document (microsoft/appcenter-cli swagger/bifrost.swagger.json). Same auth and errors.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppCenterError } from './errors.js';
import {
  appOf,
  appsOf,
  groupMembers,
  groupOf,
  groupReleases,
  groupsOf,
  latestReleaseId,
  recentReleasesJson,
  releaseDetails,
  userOfToken,
  userProfile,
} from './directory.js';
import { resolveAccess } from './queries.js';
import { GatewayErrorSchema, ReleasesHeadersSchema, ReleasesParamsSchema } from './schemas.js';

const JSON_TYPE = 'application/json; charset=utf-8';
const AnyObject = Type.Object({}, { additionalProperties: true });
const errors = { 400: GatewayErrorSchema, 401: GatewayErrorSchema, 404: GatewayErrorSchema };
const GroupParamsSchema = Type.Object({
  owner_name: Type.String(),
  app_name: Type.String(),
  distribution_group_name: Type.String({ description: 'The group name (matched without regard to letter case).' }),
});
const ReleaseParamsSchema = Type.Object({
  owner_name: Type.String(),
  app_name: Type.String(),
  release_id: Type.String({ description: 'A release id, or `latest`: the newest release distributed to the caller.' }),
});

function tokenOf(request: FastifyRequest): string | undefined {
  const header = request.headers['x-api-token'];
  return Array.isArray(header) ? header[0] : header;
}

function caller(request: FastifyRequest): number {
  const user = userOfToken(request.store, tokenOf(request));
  if (user === undefined) throw new AppCenterError(401);
  return user;
}

/** Token, then the app: unknown and invisible apps are both 404, as upstream. */
function appAccess(request: FastifyRequest): { userId: number; appId: number } {
  const { owner_name, app_name } = request.params as { owner_name: string; app_name: string };
  const access = resolveAccess(request.store, tokenOf(request), owner_name, app_name);
  if (access.kind === 'unauthorized') throw new AppCenterError(401);
  if (access.kind === 'not-found') throw new AppCenterError(404);
  return access;
}

const send = (reply: FastifyReply, body: unknown) =>
  reply.type(JSON_TYPE).send(typeof body === 'string' ? body : JSON.stringify(body));

const schema = (operationId: string, summary: string, params: object | undefined, ok: object) => ({
  schema: {
    operationId,
    tags: ['appcenter'],
    security: [{ APIToken: [] }],
    summary,
    ...(params ? { params } : {}),
    headers: ReleasesHeadersSchema,
    response: { 200: ok, ...errors },
  },
});

function groupName(request: FastifyRequest): string {
  return (request.params as { distribution_group_name: string }).distribution_group_name;
}

/** The group named in the path, in an app the caller may see; 404 naming it when the app has none such. */
function inGroup<T>(req: FastifyRequest, read: (appId: number, name: string) => T | undefined): T {
  const found = read(appAccess(req).appId, groupName(req));
  if (found === undefined) throw new AppCenterError(404, `Distribution group ${groupName(req)} was not found`);
  return found;
}

export async function directoryRoutes(app: FastifyInstance): Promise<void> {
  userAndAppRoutes(app);
  groupRoutes(app);
  releaseRoutes(app);
}

/** users_get, apps_list and apps_get: who the caller is and what it may see. */
function userAndAppRoutes(app: FastifyInstance): void {
  app.get('/v0.1/user', schema('users_get', 'The caller’s user profile.', undefined, AnyObject), async (req, reply) =>
    send(reply, userProfile(req.store, caller(req))),
  );

  app.get(
    '/v0.1/apps',
    schema(
      'apps_list',
      'The apps the caller may see, in the order they were created.',
      undefined,
      Type.Array(AnyObject),
    ),
    async (req, reply) => send(reply, appsOf(req.store, caller(req))),
  );

  app.get(
    '/v0.1/apps/:owner_name/:app_name',
    schema('apps_get', 'One app the caller may see.', ReleasesParamsSchema, AnyObject),
    async (req, reply) => {
      const { userId, appId } = appAccess(req);
      return send(reply, appOf(req.store, userId, appId));
    },
  );
}

/** distributionGroups_list, distributionGroups_get, distributionGroups_listUsers, releases_listByDistributionGroup. */
function groupRoutes(app: FastifyInstance): void {
  app.get(
    '/v0.1/apps/:owner_name/:app_name/distribution_groups',
    schema(
      'distributionGroups_list',
      "The app's distribution groups, by name.",
      ReleasesParamsSchema,
      Type.Array(AnyObject),
    ),
    async (req, reply) => send(reply, groupsOf(req.store, appAccess(req).appId)),
  );

  app.get(
    '/v0.1/apps/:owner_name/:app_name/distribution_groups/:distribution_group_name',
    schema('distributionGroups_get', 'One distribution group of the app.', GroupParamsSchema, AnyObject),
    async (req, reply) =>
      send(
        reply,
        inGroup(req, (a, n) => groupOf(req.store, a, n)),
      ),
  );

  app.get(
    '/v0.1/apps/:owner_name/:app_name/distribution_groups/:distribution_group_name/members',
    schema(
      'distributionGroups_listUsers',
      'The members of a distribution group.',
      GroupParamsSchema,
      Type.Array(AnyObject),
    ),
    async (req, reply) =>
      send(
        reply,
        inGroup(req, (a, n) => groupMembers(req.store, a, n)),
      ),
  );

  app.get(
    '/v0.1/apps/:owner_name/:app_name/distribution_groups/:distribution_group_name/releases',
    schema(
      'releases_listByDistributionGroup',
      'The releases distributed to a group, newest first.',
      GroupParamsSchema,
      Type.Array(AnyObject),
    ),
    async (req, reply) =>
      send(
        reply,
        inGroup(req, (a, n) => groupReleases(req.store, a, n)),
      ),
  );
}

/** releases_listLatest and releases_getLatestByUser (one release by id, or `latest`). */
function releaseRoutes(app: FastifyInstance): void {
  app.get(
    '/v0.1/apps/:owner_name/:app_name/recent_releases',
    schema(
      'releases_listLatest',
      'The latest release of every distribution group of the app, newest first.',
      ReleasesParamsSchema,
      Type.Array(AnyObject),
    ),
    async (req, reply) => send(reply, recentReleasesJson(req.store, appAccess(req).appId)),
  );

  app.get(
    '/v0.1/apps/:owner_name/:app_name/releases/:release_id',
    schema(
      'releases_getLatestByUser',
      'One release by id; `latest` is the newest release distributed to a group the caller is in.',
      ReleaseParamsSchema,
      AnyObject,
    ),
    async (req, reply) => {
      const { userId, appId } = appAccess(req);
      const raw = (req.params as { release_id: string }).release_id;
      let id: number | undefined;
      if (raw === 'latest') id = latestReleaseId(req.store, appId, userId);
      else if (/^\d{1,15}$/.test(raw)) id = Number(raw);
      else
        throw new AppCenterError(400, `The value '${raw}' is not valid for release_id (expected a number or latest)`);
      const details =
        id === undefined ? undefined : releaseDetails(req.store, appOf(req.store, userId, appId), appId, id);
      if (!details) throw new AppCenterError(404, `Could not find release with id ${raw}`);
      return send(reply, details);
    },
  );
}
