// The App Center "directory" around releases_list: the caller, apps, distribution groups and single releases,
// read from the same appcenter_* tables; no request or reply in here.
import { createHash } from 'node:crypto';
import type { FixtureStore } from '../../platform/data/fixture-store.js';

/** A stable UUID-shaped id (name-based, version 5 layout), so the same fixtures always give the same ids. */
export function stableId(kind: string, key: string | number): string {
  const h = createHash('sha1').update(`mockyard-appcenter:${kind}:${key}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export function userOfToken(store: FixtureStore, token: string | undefined): number | undefined {
  if (!token) return undefined;
  const row = store.prepare('SELECT user_id AS id FROM appcenter_tokens WHERE token = ?').get(token) as
    | { id: number }
    | undefined;
  return row?.id;
}

interface UserRow {
  id: number;
  name: string;
  display_name: string;
  email: string;
}

function userJson(u: UserRow) {
  return { id: stableId('user', u.name), display_name: u.display_name, email: u.email, name: u.name };
}

/** UserProfileResponse (users_get). */
export function userProfile(store: FixtureStore, userId: number) {
  const u = store
    .prepare('SELECT id, name, display_name, email FROM appcenter_users WHERE id = ?')
    .get(userId) as UserRow;
  return { ...userJson(u), can_change_password: true, origin: 'appcenter' as const };
}

interface AppRow {
  id: number;
  name: string;
  os: string;
  owner: string;
  owner_display: string;
  owner_kind: 'user' | 'org';
  owner_email: string | null;
  via: string;
  first_upload: string | null;
  last_upload: string | null;
}

const APP_SELECT = `SELECT a.id, a.name, a.os, o.name AS owner, o.display_name AS owner_display, o.kind AS owner_kind,
    u.email AS owner_email, x.via,
    (SELECT min(uploaded_at) FROM appcenter_releases r WHERE r.app_id = a.id) AS first_upload,
    (SELECT max(uploaded_at) FROM appcenter_releases r WHERE r.app_id = a.id) AS last_upload
  FROM appcenter_app_access x
  JOIN appcenter_apps a ON a.id = x.app_id
  JOIN appcenter_owners o ON o.id = a.owner_id
  LEFT JOIN appcenter_users u ON u.id = o.user_id
  WHERE x.user_id = @user`;

// App Center's platform for the SDK an app was created with; the fixtures' apps are native ones.
const PLATFORM: Record<string, string> = { Android: 'Java', iOS: 'Objective-C-Swift', macOS: 'Objective-C-Swift' };

function appJson(a: AppRow) {
  const displayName = a.name.replace(/-/g, ' ');
  return {
    id: stableId('app', `${a.owner}/${a.name}`),
    app_secret: stableId('app-secret', `${a.owner}/${a.name}`),
    description: `${displayName} (${a.os})`,
    display_name: displayName,
    name: a.name,
    os: a.os,
    owner: {
      id: stableId(a.owner_kind === 'user' ? 'user' : 'org', a.owner),
      display_name: a.owner_display,
      ...(a.owner_email ? { email: a.owner_email } : {}),
      name: a.owner,
      type: a.owner_kind,
    },
    platform: PLATFORM[a.os] ?? 'Unknown',
    origin: 'appcenter' as const,
    ...(a.first_upload ? { created_at: a.first_upload } : {}),
    ...(a.last_upload ? { updated_at: a.last_upload } : {}),
    // Owners and organization members manage the app; members of one of its groups only test it.
    member_permissions: [a.via === 'distribution group' ? 'tester' : 'manager'],
  };
}

export type AppDetails = ReturnType<typeof appJson>;

/** Every app the user may see (AppResponse items), in the order they were created. */
export function appsOf(store: FixtureStore, userId: number): AppDetails[] {
  const rows = store.prepare(`${APP_SELECT} ORDER BY a.id`).all({ user: userId }) as AppRow[];
  return rows.map(appJson);
}

export function appOf(store: FixtureStore, userId: number, appId: number): AppDetails {
  const row = store.prepare(`${APP_SELECT} AND a.id = @app`).get({ user: userId, app: appId }) as AppRow;
  return appJson(row);
}

interface GroupRow {
  id: string;
  name: string;
}

function groupJson(g: GroupRow) {
  return { id: g.id, name: g.name, display_name: g.name, origin: 'appcenter' as const, is_public: false };
}

/** The app's live distribution groups (deleted ones are gone, as upstream), by name. */
export function groupsOf(store: FixtureStore, appId: number) {
  const rows = store
    .prepare('SELECT id, name FROM appcenter_groups WHERE app_id = ? AND deleted = 0 ORDER BY name, id')
    .all(appId) as GroupRow[];
  return rows.map(groupJson);
}

/** A live group by its name; App Center matches group names without regard to letter case. */
function findGroup(store: FixtureStore, appId: number, name: string): GroupRow | undefined {
  return store
    .prepare(
      'SELECT id, name FROM appcenter_groups WHERE app_id = ? AND deleted = 0 AND name = ? COLLATE NOCASE ORDER BY name = ? DESC LIMIT 1',
    )
    .get(appId, name, name) as GroupRow | undefined;
}

export function groupOf(store: FixtureStore, appId: number, name: string) {
  const g = findGroup(store, appId, name);
  return g ? groupJson(g) : undefined;
}

export function groupMembers(store: FixtureStore, appId: number, name: string) {
  const g = findGroup(store, appId, name);
  if (!g) return undefined;
  const rows = store
    .prepare(
      `SELECT u.id, u.name, u.display_name, u.email FROM appcenter_group_members m
       JOIN appcenter_users u ON u.id = m.user_id WHERE m.group_id = ? ORDER BY u.name`,
    )
    .all(g.id) as UserRow[];
  return rows.map(userJson);
}

interface ReleaseRow {
  id: number;
  version: string;
  short_version: string;
  origin: string;
  enabled: number;
  uploaded_at: string;
  is_external_build: number;
  body: string;
}

const NEWEST = 'ORDER BY r.uploaded_at DESC, r.id DESC';

/** The releases distributed to a group (its "releases" tab), newest first, as BasicReleaseDetails of a group. */
export function groupReleases(store: FixtureStore, appId: number, name: string) {
  const g = findGroup(store, appId, name);
  if (!g) return undefined;
  const rows = store
    .prepare(
      `SELECT r.* FROM appcenter_release_groups rg
       JOIN appcenter_releases r ON r.app_id = rg.app_id AND r.id = rg.release_id
       WHERE rg.group_id = ? AND rg.app_id = ? ${NEWEST}`,
    )
    .all(g.id, appId) as ReleaseRow[];
  return rows.map((r) => ({
    id: r.id,
    version: r.version,
    ...(r.origin ? { origin: r.origin } : {}),
    short_version: r.short_version,
    mandatory_update: false,
    uploaded_at: r.uploaded_at,
    enabled: r.enabled === 1,
    is_external_build: r.is_external_build === 1,
  }));
}

/** releases_listLatest: the latest release of every live group of the app, each once, newest first. */
export function recentReleasesJson(store: FixtureStore, appId: number): string {
  const row = store
    .prepare(
      `SELECT '[' || coalesce(group_concat(body, ',' ORDER BY uploaded_at DESC, id DESC), '') || ']' AS json
       FROM (SELECT DISTINCT r.body, r.uploaded_at, r.id FROM appcenter_groups g
         JOIN appcenter_release_groups rg ON rg.group_id = g.id
         JOIN appcenter_releases r ON r.app_id = rg.app_id AND r.id = rg.release_id
         WHERE g.app_id = @app AND g.deleted = 0
           AND NOT EXISTS (SELECT 1 FROM appcenter_release_groups n
             JOIN appcenter_releases nr ON nr.app_id = n.app_id AND nr.id = n.release_id
             WHERE n.group_id = g.id AND (nr.uploaded_at > r.uploaded_at OR (nr.uploaded_at = r.uploaded_at AND nr.id > r.id))))`,
    )
    .get({ app: appId }) as { json: string };
  return row.json;
}

/**
 * The release `latest` names for this user: the newest release distributed to a live group the user is in
 * (App Center: "the latest release that was distributed to the current user (from all the distribution groups)").
 */
export function latestReleaseId(store: FixtureStore, appId: number, userId: number): number | undefined {
  const row = store
    .prepare(
      `SELECT r.id FROM appcenter_release_testers t
       JOIN appcenter_releases r ON r.app_id = t.app_id AND r.id = t.release_id
       WHERE t.user_id = ? AND t.app_id = ? ${NEWEST} LIMIT 1`,
    )
    .get(userId, appId) as { id: number } | undefined;
  return row?.id;
}

/** ReleaseDetailsResponse: the list item of releases_list, plus what only the detail carries. */
export function releaseDetails(store: FixtureStore, app: AppDetails, appId: number, releaseId: number) {
  const row = store.prepare('SELECT * FROM appcenter_releases WHERE app_id = ? AND id = ?').get(appId, releaseId) as
    | (ReleaseRow & { commit_message: string | null })
    | undefined;
  if (!row) return undefined;
  const item = JSON.parse(row.body) as Record<string, unknown>;
  const key = `${app.owner.name}/${app.name}/${row.id}`;
  const digest = createHash('sha256').update(key).digest();
  const bundle = `com.${app.owner.name}.${app.name}`.toLowerCase().replace(/[^a-z0-9.]/g, '');
  const ext = app.os === 'Android' ? 'apk' : 'ipa';
  const download = `https://appcenter-filemanagement-distrib1ede6f06e.azureedge.net/${stableId('file', key)}/${encodeURIComponent(app.name)}.${ext}`;
  const platform =
    app.os === 'Android'
      ? { android_min_api_level: String(21 + (digest[1]! % 8)), min_os: `${5 + (digest[1]! % 8)}.0` }
      : {
          provisioning_profile_name: `${app.display_name} Ad Hoc`,
          provisioning_profile_type: 'adhoc',
          device_family: 'iPhone/iPad',
          min_os: `${13 + (digest[1]! % 4)}.0`,
        };
  return {
    ...item,
    app_name: app.name,
    app_display_name: app.display_name,
    app_os: app.os,
    release_notes: row.commit_message ?? '',
    size: 4_000_000 + (digest.readUInt32BE(2) % 60_000_000),
    ...platform,
    bundle_identifier: bundle,
    package_hashes: [digest.toString('hex')],
    fingerprint: createHash('md5').update(key).digest('hex'),
    download_url: download,
    app_icon_url: `https://appcenter-filemanagement-distrib1ede6f06e.azureedge.net/icons/${app.id}.png`,
    install_url:
      app.os === 'Android'
        ? download
        : `itms-services://?action=download-manifest&url=${encodeURIComponent(`https://install.appcenter.ms/api/v0.1/apps/${app.owner.name}/${app.name}/distribution_groups/releases/${row.id}/manifest`)}`,
    status: 'available',
  };
}
