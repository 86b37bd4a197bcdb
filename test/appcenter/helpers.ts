// Shared reads for the App Center tests: the hand-written world, raw-table expectations, error checks.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { FixtureStore } from '../../src/platform/data/fixture-store.js';
import { readWorld } from '../../fixtures/appcenter/build.js';
import { expectContract } from '../helpers/contract.js';

const here = path.dirname(fileURLToPath(import.meta.url));
export const world = readWorld(path.join(here, '..', '..', 'fixtures', 'appcenter'));
export const tokenOf = (user: string): string => world.users.find((u) => u.name === user)!.tokens[0]!;

export interface Release {
  id: number;
  version: string;
  short_version: string;
  origin?: string;
  uploaded_at: string;
  enabled: boolean;
  distribution_groups?: { id: string; name?: string; is_latest?: boolean }[];
  distribution_stores?: { id: string; name?: string; type?: string; publishing_status?: string; is_latest?: boolean }[];
  destinations?: { id: string; destination_type?: string; display_name?: string; name?: string }[];
  build?: { branch_name?: string; commit_hash?: string; commit_message?: string };
}

export function releasesUrl(owner: string, app: string, query: Record<string, string | number | boolean> = {}): string {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString();
  return `/appcenter/v0.1/apps/${encodeURIComponent(owner)}/${encodeURIComponent(app)}/releases${qs ? `?${qs}` : ''}`;
}

/** GET releases_list as `user` (or with a raw token), checked against the contract. */
export async function list(
  app: FastifyInstance,
  owner: string,
  appName: string,
  query: Record<string, string | number | boolean> = {},
  user = 'alice',
): Promise<Release[]> {
  const res = await app.inject({ url: releasesUrl(owner, appName, query), headers: { 'X-API-Token': tokenOf(user) } });
  expectContract('releases_list', res);
  expect(res.statusCode).toBe(200);
  return res.json() as Release[];
}

const contract = JSON.parse(
  readFileSync(path.join(here, '..', 'contracts', 'c-appcenter.openapi.json'), 'utf8'),
) as object;
const ajv = new Ajv({ strict: false, allErrors: true });
ajv.addSchema(contract, 'c');
const gatewayError = ajv.compile({ $ref: 'c#/components/schemas/GatewayError' });
const errorDetails = ajv.compile({ $ref: 'c#/components/schemas/ErrorDetails' });

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const CODES: Record<number, string> = { 400: 'BadRequest', 401: 'Unauthorized', 404: 'Not Found' };

/**
 * An App Center gateway error. 401 and 404 are checked by the contract helper; the contract
 * documents no 400, so a 400 is checked against both error schemas the contract carries.
 */
export function expectAppCenterError(
  res: LightMyRequestResponse,
  status: 400 | 401 | 404,
  messageStart?: RegExp,
): { message: string } {
  expect(res.statusCode).toBe(status);
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  const body = res.json() as { message: string; statusCode: number; code: string };
  if (status === 400) {
    expect(gatewayError(body), JSON.stringify(gatewayError.errors)).toBe(true);
    expect(errorDetails(body), JSON.stringify(errorDetails.errors)).toBe(true);
  } else {
    expectContract('releases_list', res);
  }
  expect(body.statusCode).toBe(status);
  expect(body.code).toBe(CODES[status]);
  expect(body.message).toMatch(new RegExp(`\\. Correlation ID: ${UUID}$`));
  if (messageStart) expect(body.message).toMatch(messageStart);
  expect(Object.keys(body).sort()).toEqual(['code', 'message', 'statusCode']);
  return body;
}

/** Apps a user may see, from the raw tables: own apps, their organizations' apps, apps with a live group they are in. */
export function visibleApps(store: FixtureStore, user: string): Set<string> {
  const rows = store.db
    .prepare(
      `SELECT o.name || '/' || a.name AS k FROM appcenter_apps a JOIN appcenter_owners o ON o.id = a.owner_id
       JOIN appcenter_users u ON u.name = ?
       WHERE o.user_id = u.id
          OR EXISTS (SELECT 1 FROM appcenter_org_members om WHERE om.org_id = o.id AND om.user_id = u.id)
          OR EXISTS (SELECT 1 FROM appcenter_groups g JOIN appcenter_group_members gm ON gm.group_id = g.id
                     WHERE g.app_id = a.id AND g.deleted = 0 AND gm.user_id = u.id)`,
    )
    .all(user) as { k: string }[];
  return new Set(rows.map((r) => r.k));
}

export interface RawRelease {
  id: number;
  uploaded_at: string;
  /** Every group it went to, live or deleted. */
  groups: { id: string; deleted: boolean; members: string[] }[];
  stores: string[];
}

export function rawReleases(store: FixtureStore, owner: string, appName: string): RawRelease[] {
  const rows = store.db
    .prepare(
      `SELECT r.id, r.uploaded_at,
         (SELECT json_group_array(json_object('id', g.id, 'deleted', g.deleted,
            'members', (SELECT json_group_array(u.name) FROM appcenter_group_members gm JOIN appcenter_users u ON u.id = gm.user_id WHERE gm.group_id = g.id)))
          FROM appcenter_release_groups rg JOIN appcenter_groups g ON g.id = rg.group_id
          WHERE rg.app_id = r.app_id AND rg.release_id = r.id) AS groups,
         (SELECT json_group_array(rs.store_id) FROM appcenter_release_stores rs WHERE rs.app_id = r.app_id AND rs.release_id = r.id) AS stores
       FROM appcenter_releases r JOIN appcenter_apps a ON a.id = r.app_id JOIN appcenter_owners o ON o.id = a.owner_id
       WHERE o.name = ? AND a.name = ?`,
    )
    .all(owner, appName) as { id: number; uploaded_at: string; groups: string; stores: string }[];
  return rows.map((r) => ({
    id: r.id,
    uploaded_at: r.uploaded_at,
    groups: (JSON.parse(r.groups) as { id: string; deleted: number; members: string[] }[]).map((g) => ({
      ...g,
      deleted: g.deleted === 1,
    })),
    stores: JSON.parse(r.stores) as string[],
  }));
}

/** Newest first: uploaded_at descending, then id descending. */
export function newestFirst<T extends { id: number; uploaded_at: string }>(rows: T[]): T[] {
  return [...rows].sort((a, b) =>
    a.uploaded_at === b.uploaded_at ? b.id - a.id : a.uploaded_at < b.uploaded_at ? 1 : -1,
  );
}

export const allApps = world.apps.map((a) => ({ owner: a.owner, app: a.name }));
