// A scenario's App Center part as the records the App Center loader takes.
import { createHash } from 'node:crypto';
import type { AppRecord, AppcenterRecords, ReleaseRecord, StoreType } from '../../fixtures/appcenter/load.js';
import { ScenarioError, pointer } from './errors.js';
import type { ScenarioBody } from './schema.js';

type Body = NonNullable<ScenarioBody['appcenter']>;

/** A stable UUID-shaped id from a name, so the same body always gets the same ids. */
function stableUuid(name: string): string {
  const h = createHash('sha1').update(`mockyard-scenario:${name}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const AT = '/appcenter';
type AppIn = NonNullable<Body['apps']>[number];
type ReleaseIn = NonNullable<AppIn['releases']>[number];
type Group = AppRecord['groups'][number];
/** Throws unless `name` is one of appcenter.users. */
type NeedUser = (name: string, where: string) => void;

/** The user names, each listed once, and no token given to two users. */
function userNamesOf(users: NonNullable<Body['users']>): Set<string> {
  const userNames = new Set<string>();
  const tokens = new Set<string>();
  users.forEach((u, i) => {
    if (userNames.has(u.name))
      throw new ScenarioError(pointer(AT, 'users', i, 'name'), `user "${u.name}" is listed twice`);
    userNames.add(u.name);
    if (u.token !== undefined) {
      if (tokens.has(u.token))
        throw new ScenarioError(pointer(AT, 'users', i, 'token'), 'this token belongs to another user already');
      tokens.add(u.token);
    }
  });
  return userNames;
}

function organizationsOf(body: Body, userNames: Set<string>, needUser: NeedUser): AppcenterRecords['organizations'] {
  return (body.organizations ?? []).map((o, i) => {
    if (userNames.has(o.name))
      throw new ScenarioError(pointer(AT, 'organizations', i, 'name'), `"${o.name}" is already a user`);
    o.members.forEach((m, j) => needUser(m, pointer(AT, 'organizations', i, 'members', j)));
    return { name: o.name, display_name: o.display_name ?? o.name, members: [...new Set(o.members)] };
  });
}

/** An app's groups, each name once. The id may also come from a pasted release; one is made up only when none is. */
function groupsOf(app: AppIn, appAt: string, needUser: NeedUser): { groups: Group[]; groupIndex: Map<string, number> } {
  const groups: Group[] = [];
  const groupIndex = new Map<string, number>();
  (app.groups ?? []).forEach((g, i) => {
    if (groupIndex.has(g.name))
      throw new ScenarioError(pointer(appAt, 'groups', i, 'name'), `group "${g.name}" is listed twice`);
    (g.members ?? []).forEach((m, j) => needUser(m, pointer(appAt, 'groups', i, 'members', j)));
    groupIndex.set(g.name, groups.length);
    groups.push({ id: g.id ?? '', name: g.name, deleted: g.deleted === true, members: [...(g.members ?? [])] });
  });
  return { groups, groupIndex };
}

/** What the releases of one app share: its groups, and its stores as the releases name them. */
interface AppContext {
  app: AppIn;
  groups: Group[];
  groupIndex: Map<string, number>;
  stores: AppRecord['stores'];
  storeIndex: Map<string, number>;
}

/** The indexes of the groups a release names; a group id given there must agree with the group's. */
function releaseGroups(r: ReleaseIn, rAt: string, { app, groups, groupIndex }: AppContext): number[] {
  return (r.distribution_groups ?? []).map((ref, j) => {
    const index = groupIndex.get(ref.name);
    if (index === undefined)
      throw new ScenarioError(
        pointer(rAt, 'distribution_groups', j, 'name'),
        `"${ref.name}" is not one of the groups of ${app.owner}/${app.name}`,
      );
    const group = groups[index]!;
    if (ref.id !== undefined && group.id === '') group.id = ref.id;
    else if (ref.id !== undefined && ref.id !== group.id) {
      throw new ScenarioError(
        pointer(rAt, 'distribution_groups', j, 'id'),
        `group "${ref.name}" has id ${group.id} (given on the group or an earlier release)`,
      );
    }
    return index;
  });
}

/** The stores a release names, each added to the app's stores the first time it is named. */
function releaseStores(r: ReleaseIn, { app, stores, storeIndex }: AppContext) {
  return (r.distribution_stores ?? []).map((ref) => {
    let index = storeIndex.get(ref.name);
    if (index === undefined) {
      index = stores.length;
      storeIndex.set(ref.name, index);
      stores.push({
        id: ref.id ?? stableUuid(`store:${app.owner}/${app.name}/${ref.name}`),
        name: ref.name,
        type: (ref.type ?? 'googleplay') as StoreType,
      });
    }
    return { index, publishing_status: ref.publishing_status ?? 'Published' };
  });
}

function releaseRecord(r: ReleaseIn, rAt: string, context: AppContext): ReleaseRecord {
  const time = Date.parse(r.uploaded_at);
  if (Number.isNaN(time))
    throw new ScenarioError(pointer(rAt, 'uploaded_at'), `"${r.uploaded_at}" is not an ISO 8601 time`);
  const groups = releaseGroups(r, rAt, context);
  const stores = releaseStores(r, context);
  return {
    id: r.id,
    version: r.version,
    short_version: r.short_version,
    ...(r.origin === undefined ? {} : { origin: r.origin }),
    enabled: r.enabled ?? true,
    uploaded_at: new Date(time).toISOString(),
    ...(r.is_external_build === undefined ? {} : { is_external_build: r.is_external_build }),
    ...(r.file_extension === undefined ? {} : { file_extension: r.file_extension }),
    build: r.build ?? null,
    groups: [...new Set(groups)].sort((x, y) => x - y),
    stores: stores
      .filter((s, j) => stores.findIndex((o) => o.index === s.index) === j)
      .sort((x, y) => x.index - y.index),
  };
}

function appRecord(app: AppIn, appAt: string, needUser: NeedUser): AppRecord {
  const { groups, groupIndex } = groupsOf(app, appAt, needUser);
  const context: AppContext = { app, groups, groupIndex, stores: [], storeIndex: new Map() };
  const releaseIds = new Set<number>();
  const releases = (app.releases ?? []).map((r, i) => {
    const rAt = pointer(appAt, 'releases', i);
    if (releaseIds.has(r.id))
      throw new ScenarioError(pointer(rAt, 'id'), `release id ${r.id} is used twice in ${app.owner}/${app.name}`);
    releaseIds.add(r.id);
    return releaseRecord(r, rAt, context);
  });
  for (const g of groups) if (g.id === '') g.id = stableUuid(`group:${app.owner}/${app.name}/${g.name}`);
  const os = app.os ?? (app.releases?.some((r) => r.file_extension === 'ipa') ? 'iOS' : 'Android');
  return { owner: app.owner, name: app.name, os, groups, stores: context.stores, releases };
}

export function appcenterRecords(body: Body): { records: AppcenterRecords; counts: Record<string, number> } {
  const users = body.users ?? [];
  const userNames = userNamesOf(users);
  const needUser: NeedUser = (name, where) => {
    if (!userNames.has(name)) throw new ScenarioError(where, `"${name}" is not one of appcenter.users`);
  };
  const organizations = organizationsOf(body, userNames, needUser);
  const owners = new Set([...userNames, ...organizations.map((o) => o.name)]);

  const apps: AppRecord[] = [];
  const groupsByPath = new Map<string, Group>();
  (body.apps ?? []).forEach((app, a) => {
    const appAt = pointer(AT, 'apps', a);
    if (apps.some((x) => x.owner === app.owner && x.name === app.name)) {
      throw new ScenarioError(pointer(appAt, 'name'), `app ${app.owner}/${app.name} is listed twice`);
    }
    // An owner that is neither a user nor a listed organization is an organization nobody is a member of.
    if (!owners.has(app.owner)) {
      owners.add(app.owner);
      organizations.push({ name: app.owner, display_name: app.owner, members: [] });
    }
    const record = appRecord(app, appAt, needUser);
    for (const g of record.groups) groupsByPath.set(`${app.owner}/${app.name}/${g.name}`, g);
    apps.push(record);
  });

  users.forEach((u, i) =>
    (u.groups ?? []).forEach((path, j) => {
      const group = groupsByPath.get(path);
      if (!group)
        throw new ScenarioError(
          pointer(AT, 'users', i, 'groups', j),
          `"${path}" is not a group of an app in appcenter.apps (owner/app/Group)`,
        );
      if (!group.members.includes(u.name)) group.members.push(u.name);
    }),
  );

  return {
    records: {
      users: users.map((u) => ({
        name: u.name,
        display_name: u.display_name ?? u.name,
        email: u.email ?? `${u.name}@example.com`,
        tokens: u.token === undefined ? [] : [u.token],
      })),
      organizations,
      apps,
    },
    counts: { users: users.length, apps: apps.length, releases: apps.reduce((n, a) => n + a.releases.length, 0) },
  };
}
