// Prepared SQL of the App Center area; no request or reply in here.
import type { FixtureStore } from '../../platform/data/fixture-store.js';

export type Access = { kind: 'unauthorized' } | { kind: 'not-found' } | { kind: 'ok'; userId: number; appId: number };

/** Caller and app in one lookup: unknown token, unknown or invisible app, or both ids; kept per store. */
export function resolveAccess(store: FixtureStore, token: string | undefined, owner: string, app: string): Access {
  if (!token) return { kind: 'unauthorized' };
  const known = store.lru<Access>('appcenter:access', () => ({ max: 10_000 }));
  const key = `${token}\0${owner}\0${app}`;
  let access = known.get(key);
  if (!access) {
    access = lookupAccess(store, token, owner, app);
    // Only answers about real tokens are kept, so unknown tokens cannot crowd them out.
    if (access.kind !== 'unauthorized') known.set(key, access);
  }
  return access;
}

function lookupAccess(store: FixtureStore, token: string, owner: string, app: string): Access {
  const row = store
    .prepare(
      `SELECT t.user_id AS userId, a.id AS appId, x.user_id IS NOT NULL AS visible
       FROM appcenter_tokens t
       LEFT JOIN appcenter_owners o ON o.name = @owner
       LEFT JOIN appcenter_apps a ON a.owner_id = o.id AND a.name = @app
       LEFT JOIN appcenter_app_access x ON x.user_id = t.user_id AND x.app_id = a.id
       WHERE t.token = @token`,
    )
    .get({ token, owner, app }) as { userId: number; appId: number | null; visible: 0 | 1 } | undefined;
  if (!row) return { kind: 'unauthorized' };
  if (row.appId === null || !row.visible) return { kind: 'not-found' };
  return { kind: 'ok', userId: row.userId, appId: row.appId };
}

export interface ReleaseFilter {
  appId: number;
  publishedOnly: boolean;
  /** Only releases that reached this user through a live distribution group (scope=tester). */
  testerUserId: number | null;
  releaseId: number | null;
  top: number | null;
}

// Cap for LIMIT: SQLite wants an integer it can hold; no app has this many releases.
const MAX_TOP = 1_000_000;

/**
 * The JSON array of BasicReleaseDetailsResponse items, newest first (uploaded_at, then id), as bytes. Repeats
 * are served by the answer cache (platform/http/answer-cache.ts), so nothing is kept here.
 */
export function listReleasesJson(store: FixtureStore, f: ReleaseFilter): Buffer {
  return Buffer.from(queryReleasesJson(store, f));
}

function queryReleasesJson(store: FixtureStore, f: ReleaseFilter): string {
  const row = store
    .prepare(
      `SELECT '[' || coalesce(group_concat(body, ',' ORDER BY uploaded_at DESC, id DESC), '') || ']' AS json
       FROM (
         SELECT r.body, r.uploaded_at, r.id FROM appcenter_releases r
         WHERE r.app_id = @appId
           AND (@publishedOnly = 0 OR r.distributed = 1)
           AND (@releaseId IS NULL OR r.id = @releaseId)
           AND (@tester IS NULL OR EXISTS (
             SELECT 1 FROM appcenter_release_testers t WHERE t.user_id = @tester AND t.app_id = r.app_id AND t.release_id = r.id))
         ORDER BY r.uploaded_at DESC, r.id DESC
         LIMIT @top
       )`,
    )
    .get({
      appId: f.appId,
      publishedOnly: f.publishedOnly ? 1 : 0,
      releaseId: f.releaseId,
      tester: f.testerUserId,
      top: f.top === null ? -1 : Math.min(f.top, MAX_TOP),
    }) as { json: string };
  return row.json;
}

export interface CatalogToken {
  token: string;
  user: string;
  groups: string[];
}

export function catalogData(store: FixtureStore): { tokens: CatalogToken[]; apps: { owner: string; app: string }[] } {
  const tokens = store
    .prepare(
      // One grouped pass over the memberships, joined to the tokens: a subquery per token read every
      // membership again (the table's key starts with the group), quadratic in a scenario's users.
      `SELECT t.token, u.name AS user, coalesce(mg.groups, '[]') AS groups
       FROM appcenter_tokens t JOIN appcenter_users u ON u.id = t.user_id
       LEFT JOIN (
         SELECT m.user_id, json_group_array(o.name || '/' || a.name || '/' || g.name ORDER BY o.name, a.name, g.name) AS groups
         FROM appcenter_group_members m
         JOIN appcenter_groups g ON g.id = m.group_id AND g.deleted = 0
         JOIN appcenter_apps a ON a.id = g.app_id
         JOIN appcenter_owners o ON o.id = a.owner_id
         GROUP BY m.user_id
       ) AS mg ON mg.user_id = u.id
       ORDER BY u.id, t.token`,
    )
    .all() as { token: string; user: string; groups: string }[];
  const apps = store
    .prepare(
      'SELECT o.name AS owner, a.name AS app FROM appcenter_apps a JOIN appcenter_owners o ON o.id = a.owner_id ORDER BY a.id',
    )
    .all() as { owner: string; app: string }[];
  return { tokens: tokens.map((t) => ({ ...t, groups: JSON.parse(t.groups) as string[] })), apps };
}
