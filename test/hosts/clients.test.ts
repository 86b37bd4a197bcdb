// Unmodified real clients, pointed at nothing but a proxy and a CA file: Internet Archive's `ia`, appcenter-cli
// and curl. CI installs them (.ci/run); elsewhere a missing client skips its tests.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { accessSync, constants, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectContract } from '../helpers/contract.js';
import { catalogOf, clearJournal, journal, realOperations, startHosted, type Hosted } from './helpers.js';

const exec = promisify(execFile);
const required = Boolean(process.env.CI);

/** The executable's path, from an override variable or PATH; undefined when absent. */
function findExecutable(name: string, override?: string): string | undefined {
  const candidates = override
    ? [override]
    : (process.env.PATH ?? '').split(path.delimiter).map((dir) => path.join(dir, name));
  return candidates.find((file) => {
    try {
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

const ia = findExecutable('ia');
const appcenter = findExecutable('appcenter', process.env.MOCKYARD_APPCENTER_CLI);
const curl = findExecutable('curl');

/** The environment of a user who set only a proxy and a CA: nothing else that could route around mockyard. */
function clientEnv(hosted: Hosted, extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env))
    if (!/proxy$/i.test(k) && !/^(REQUESTS_CA_BUNDLE|NODE_EXTRA_CA_CERTS|SSL_CERT_FILE|CURL_CA_BUNDLE)$/.test(k))
      env[k] = v;
  const home = path.join(hosted.tmp, 'home');
  mkdirSync(home, { recursive: true });
  return { ...env, HOME: home, HTTPS_PROXY: hosted.server.url, https_proxy: hosted.server.url, ...extra };
}

function skipNote(name: string, install: string) {
  describe(name, () => {
    it.skip(`needs ${name} (${install}); CI installs it`, () => {});
  });
}

describe.runIf(ia || required)('ia (Internet Archive CLI) through HTTPS_PROXY with REQUESTS_CA_BUNDLE', () => {
  let hosted: Hosted;
  let env: NodeJS.ProcessEnv;
  let id: string;
  let record: { files: { name: string; md5: string }[] };
  const run = (args: string[], cwd?: string) =>
    exec(ia ?? 'ia', args, { env, cwd: cwd ?? hosted.tmp, timeout: 60_000 });

  beforeAll(async () => {
    // With the redirect on, downloads take archive.org's hop to the data node, a second host through the proxy.
    hosted = await startHosted({ archiveRedirect: true });
    env = clientEnv(hosted, { REQUESTS_CA_BUNDLE: hosted.caPath });
    id = (await catalogOf(hosted.server)).archive.items.find((i) => i.status === 'ok')!.identifier;
    record = (await (await fetch(`${hosted.server.url}/archive/metadata/${id}`)).json()) as typeof record;
  });

  it('ia metadata prints the item record', async () => {
    const { stdout } = await run(['metadata', id]);
    expect(JSON.parse(stdout)).toEqual(record);
    const [entry] = await journal(hosted.server);
    expect([entry!.headers.host, entry!.path]).toEqual(['archive.org', `/archive/metadata/${id}`]);
  });

  it('ia list --columns name,md5 lists every file', async () => {
    const { stdout } = await run(['list', '--columns', 'name,md5', id]);
    expect(stdout.trim().split('\n')).toEqual(record.files.map((f) => `${f.name}\t${f.md5}`));
  });

  it('ia download fetches files whose md5 matches, and --checksum skips them the second time', async () => {
    const files = [record.files.find((f) => !f.name.includes('/'))!, record.files.find((f) => f.name.includes('/'))!];
    await clearJournal(hosted.server);
    await run(['download', id, ...files.map((f) => f.name)]);
    for (const f of files) {
      const bytes = readFileSync(path.join(hosted.tmp, id, f.name));
      expect(createHash('md5').update(bytes).digest('hex'), f.name).toBe(f.md5);
    }
    const fetched = (await journal(hosted.server)).filter((e) => e.status === 200 && /\/items\//.test(e.path));
    expect(fetched.map((e) => e.headers.host).every((h) => /^ia\d+\.us\.archive\.org$/.test(h!))).toBe(true);
    expect(fetched).toHaveLength(files.length);

    await clearJournal(hosted.server);
    const again = await run(['download', '--checksum', id, ...files.map((f) => f.name)]);
    expect(`${again.stdout}${again.stderr}`).toMatch(/skipping/);
    const refetched = (await journal(hosted.server)).filter((e) => /\/(download|items)\//.test(e.path));
    expect(refetched).toEqual([]);
  });
});
describe.runIf(ia || required)('ia search and ia download of a found item', () => {
  let hosted: Hosted;
  let env: NodeJS.ProcessEnv;
  const run = (args: string[]) => exec(ia ?? 'ia', args, { env, cwd: hosted.tmp, timeout: 60_000 });
  const scrapeTotal = async (q: string) =>
    (
      (await (
        await fetch(
          `${hosted.server.url}/archive/services/search/v1/scrape?${new URLSearchParams({ q, total_only: 'true' })}`,
        )
      ).json()) as { total: number }
    ).total;

  beforeAll(async () => {
    hosted = await startHosted();
    env = clientEnv(hosted, { REQUESTS_CA_BUNDLE: hosted.caPath });
  });

  it('--num-found and --itemlist agree with the fixtures, and a found item downloads with its md5', async () => {
    const { stdout: count } = await run(['search', 'mediatype:audio', '--num-found']);
    expect(Number(count.trim())).toBe(await scrapeTotal('mediatype:audio'));
    const { stdout: list } = await run(['search', 'mediatype:audio', '--itemlist']);
    const ids = list.trim().split('\n');
    expect(ids).toHaveLength(Number(count.trim()));
    const { stdout: json } = await run(['search', 'mediatype:audio', '--field', 'title']);
    const first = JSON.parse(json.trim().split('\n')[0]!) as { identifier: string; title: string };
    const record = (await (await fetch(`${hosted.server.url}/archive/metadata/${first.identifier}`)).json()) as {
      metadata: { title: string; mediatype: string };
      files: { name: string; md5: string }[];
    };
    expect([first.title, record.metadata.mediatype]).toEqual([record.metadata.title, 'audio']);
    const id = ids.find((i) => i !== 'mockyard-unavailable-item')!;
    const file = ((await (await fetch(`${hosted.server.url}/archive/metadata/${id}`)).json()) as typeof record)
      .files[0]!;
    await run(['download', id, file.name]);
    const bytes = readFileSync(path.join(hosted.tmp, id, file.name));
    expect(createHash('md5').update(bytes).digest('hex')).toBe(file.md5);
  }, 120_000);
});
if (!ia && !required) skipNote('ia', 'apt-get install internetarchive');

describe.runIf(appcenter || required)('appcenter-cli through HTTPS_PROXY with NODE_EXTRA_CA_CERTS', () => {
  let hosted: Hosted;

  beforeAll(async () => {
    hosted = await startHosted();
  });

  it('appcenter distribute releases list shows the releases of api.appcenter.ms', async () => {
    const c = await catalogOf(hosted.server);
    const app = c.appcenter.apps[0]!;
    const token = c.appcenter.tokens.find((t) => t.groups.some((g) => g.startsWith(`${app.owner}/${app.app}/`)))!.token;
    await clearJournal(hosted.server);
    const { stdout } = await exec(
      appcenter ?? 'appcenter',
      [
        'distribute',
        'releases',
        'list',
        '--app',
        `${app.owner}/${app.app}`,
        '--token',
        token,
        '--output',
        'json',
        '--disable-telemetry',
      ],
      { env: clientEnv(hosted, { NODE_EXTRA_CA_CERTS: hosted.caPath }), cwd: hosted.tmp, timeout: 90_000 },
    );
    const entries = await journal(hosted.server);
    expect(entries.map((e) => [e.headers.host, e.path, e.status])).toEqual([
      ['api.appcenter.ms', `/appcenter/v0.1/apps/${app.owner}/${app.app}/releases`, 200],
    ]);
    // The same request made directly: what the CLI prints must be exactly those releases.
    const query = new URLSearchParams(entries[0]!.query as Record<string, string>).toString();
    const direct = await fetch(`${hosted.server.url}/appcenter/v0.1/apps/${app.owner}/${app.app}/releases?${query}`, {
      headers: { 'x-api-token': token },
    });
    const expected = (await direct.json()) as { id: number; version: string }[];
    expect(expected.length).toBeGreaterThan(0);
    const listed = JSON.parse(stdout) as { id: number; version: string }[];
    expect(listed.map((r) => [r.id, r.version])).toEqual(expected.map((r) => [r.id, r.version]));
  }, 120_000);
});
describe.runIf(appcenter || required)('appcenter-cli: apps, groups, one release and the profile', () => {
  let hosted: Hosted;
  let token: string;
  const target = 'contoso/Field-Service-Android';
  const cli = async (args: string[]) => {
    const { stdout } = await exec(appcenter ?? 'appcenter', [...args, '--token', token, '--disable-telemetry'], {
      env: clientEnv(hosted, { NODE_EXTRA_CA_CERTS: hosted.caPath }),
      cwd: hosted.tmp,
      timeout: 90_000,
    });
    return stdout;
  };
  const direct = async (path: string) =>
    (await fetch(`${hosted.server.url}/appcenter/v0.1${path}`, { headers: { 'x-api-token': token } })).json();

  beforeAll(async () => {
    hosted = await startHosted();
    token = (await catalogOf(hosted.server)).appcenter.tokens.find((t) =>
      t.groups.some((g) => g.startsWith(`${target}/`)),
    )!.token;
  });

  it('profile list, apps list and apps show print what the API answers', async () => {
    const user = (await direct('/user')) as { name: string; email: string };
    const profile = JSON.parse(await cli(['profile', 'list', '--output', 'json'])) as Record<string, string>;
    expect(Object.values(profile)).toEqual(expect.arrayContaining([user.name, user.email]));
    const apps = (await direct('/apps')) as { name: string; owner: { name: string } }[];
    const listed = JSON.parse(await cli(['apps', 'list', '--output', 'json'])) as typeof apps;
    expect(listed.map((a) => `${a.owner.name}/${a.name}`).sort()).toEqual(
      apps.map((a) => `${a.owner.name}/${a.name}`).sort(),
    );
    const shown = JSON.parse(await cli(['apps', 'show', '--app', target, '--output', 'json'])) as {
      appName?: string;
      name?: string;
    };
    expect(JSON.stringify(shown)).toContain('Field-Service-Android');
  }, 180_000);

  it('distribute groups list/show and releases show (latest by id) print the same data', async () => {
    const groups = (await direct(`/apps/${target}/distribution_groups`)) as { name: string }[];
    const table = await cli(['distribute', 'groups', 'list', '--app', target, '--output', 'json']);
    for (const g of groups) expect(table).toContain(g.name);
    const group = groups[0]!.name;
    const releases = (await direct(`/apps/${target}/distribution_groups/${encodeURIComponent(group)}/releases`)) as {
      id: number;
    }[];
    const shown = await cli(['distribute', 'groups', 'show', '--app', target, '--group', group, '--output', 'json']);
    for (const r of releases) expect(shown).toContain(String(r.id));
    const latest = (await direct(`/apps/${target}/releases/latest`)) as { id: number; version: string };
    const release = JSON.parse(
      await cli([
        'distribute',
        'releases',
        'show',
        '--app',
        target,
        '--release-id',
        String(latest.id),
        '--output',
        'json',
      ]),
    ) as { id: number; version: string };
    expect([release.id, release.version]).toEqual([latest.id, latest.version]);
  }, 180_000);
});
if (!appcenter && !required) skipNote('appcenter', 'npm i -g appcenter-cli, or set MOCKYARD_APPCENTER_CLI');

describe.runIf(curl || required)('curl --proxy --cacert', () => {
  let hosted: Hosted;
  const curlRun = (args: string[]) =>
    exec(curl ?? 'curl', args, { env: clientEnv(hosted, {}), timeout: 30_000 }).catch(
      (err: { code: number; stdout: string; stderr: string }) => err,
    );

  beforeAll(async () => {
    hosted = await startHosted();
  });

  it('reaches one operation of every area under its real host and base path', async () => {
    for (const op of await realOperations(hosted.server)) {
      const headers = Object.entries(op.headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]);
      const result = await curlRun([
        '-sS',
        '--proxy',
        hosted.server.url,
        '--cacert',
        hosted.caPath,
        ...headers,
        '-w',
        '\n%{http_code}\n%{content_type}',
        op.url,
      ]);
      expect(result.stderr, op.url).toBe('');
      const lines = result.stdout.split('\n');
      const contentType = lines.pop()!;
      const status = Number(lines.pop());
      const res = { statusCode: status, headers: { 'content-type': contentType }, body: lines.join('\n') };
      expect(status, op.url).toBe(200);
      expectContract(op.operationId, res);
    }
  });

  it('is refused an unknown host, through CONNECT and in absolute form', async () => {
    const tunnel = await curlRun([
      '-sS',
      '--proxy',
      hosted.server.url,
      '--cacert',
      hosted.caPath,
      'https://example.com/',
    ]);
    expect(tunnel.stderr).toMatch(/403/);
    const plain = await curlRun(['-sS', '--proxy', hosted.server.url, '-w', '\n%{http_code}', 'http://example.com/']);
    expect(plain.stdout).toMatch(/--host-map example\.com=/);
    expect(plain.stdout.trim().split('\n').pop()).toBe('403');
  });
});
if (!curl && !required) skipNote('curl', 'apt-get install curl');
