// Same answers as WireMock: one set of mappings loaded into the real WireMock 3 jar and into mockyard, the same requests to both.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testApp } from '../helpers/app.js';

// One root for both: WireMock's --root-dir and mockyard's --mappings (mappings/ empty; bodies in __files/).
const root = mkdtempSync(path.join(os.tmpdir(), 'mockyard-wiremock-'));
mkdirSync(path.join(root, 'mappings'));
mkdirSync(path.join(root, '__files', 'nested'), { recursive: true });
writeFileSync(path.join(root, '__files', 'nested', 'page.html'), '<p>from __files</p>');
writeFileSync(path.join(root, '__files', 'data.json'), '{"from":"file"}');
const { app } = await testApp({ mappings: root });
const hasJava = spawnSync('java', ['-version']).status === 0;
// CI has Java (the wiremock package ships the jar); a machine without it skips with this reason shown.
const needJava = process.env.CI === 'true';

const id = (n: number) => `00000000-0000-4000-a000-${String(n).padStart(12, '0')}`;
const MAPPINGS = [
  { id: id(1), request: { method: 'GET', url: '/exact?a=1&b=2' }, response: { status: 200, body: 'exact url' } },
  {
    id: id(2),
    request: { method: 'GET', urlPath: '/path', queryParameters: { q: { equalTo: 'Ab', caseInsensitive: true } } },
    response: { status: 201, headers: { 'Content-Type': 'text/plain', 'X-Test': 'yes' }, body: 'path + query' },
  },
  {
    id: id(3),
    request: { method: 'GET', urlPattern: '/items/[0-9]+(\\?.*)?' },
    response: { status: 200, jsonBody: { kind: 'item', list: [1, 2, { x: null }] } },
  },
  {
    id: id(4),
    priority: 1,
    request: { method: 'GET', urlPathPattern: '/items/4[0-9]' },
    response: { status: 200, headers: { 'Content-Type': 'application/json' }, jsonBody: { kind: 'forties' } },
  },
  {
    id: id(5),
    request: {
      method: 'POST',
      urlPath: '/json',
      bodyPatterns: [{ equalToJson: { a: [1, 2] }, ignoreArrayOrder: true, ignoreExtraElements: true }],
    },
    response: { status: 202, body: 'json body' },
  },
  {
    id: id(6),
    request: {
      method: 'POST',
      urlPath: '/jsonpath',
      bodyPatterns: [{ matchesJsonPath: { expression: '$.user.name', matches: 'a.*' } }],
    },
    response: { status: 200, base64Body: Buffer.from([0, 1, 2, 255]).toString('base64') },
  },
  {
    id: id(7),
    request: {
      method: 'GET',
      urlPath: '/headers',
      headers: { 'X-Key': { matches: 'k-[a-z]+' }, 'X-Gone': { absent: true } },
    },
    response: {
      status: 403,
      headers: { 'Content-Type': 'application/json', 'Set-Cookie': ['a=1', 'b=2'] },
      body: '{"error":"forbidden"}',
    },
  },
  {
    id: id(8),
    request: { method: 'ANY', urlPath: '/any', cookies: { s: { contains: 'live' } } },
    response: { status: 204 },
  },
  {
    id: id(9),
    request: { method: 'GET', urlPath: '/auth', basicAuthCredentials: { username: 'u', password: 'p' } },
    response: { status: 200, body: 'authorised' },
  },
  {
    id: id(10),
    request: {
      method: 'GET',
      urlPath: '/logic',
      queryParameters: { v: { or: [{ equalTo: 'x' }, { and: [{ contains: 'y' }, { doesNotMatch: '.*z.*' }] }] } },
    },
    response: { status: 200, body: 'logic' },
  },
  {
    id: id(11),
    scenarioName: 's',
    requiredScenarioState: 'Started',
    newScenarioState: 'two',
    request: { method: 'GET', urlPath: '/step' },
    response: { body: 'one' },
  },
  {
    id: id(12),
    scenarioName: 's',
    requiredScenarioState: 'two',
    request: { method: 'GET', urlPath: '/step' },
    response: { body: 'two' },
  },
  {
    id: id(13),
    request: { method: 'PUT', urlPath: '/contains', bodyPatterns: [{ contains: 'needle' }] },
    response: { status: 200, body: 'found' },
  },
  {
    id: id(14),
    request: { method: 'GET', urlPath: '/files/page', headers: { Accept: { contains: 'html' } } },
    response: { status: 200, headers: { 'Content-Type': 'text/html' }, bodyFileName: 'nested/page.html' },
  },
  {
    id: id(15),
    priority: 2,
    request: { method: 'GET', urlPath: '/files/page' },
    response: { status: 200, headers: { 'Content-Type': 'application/json' }, bodyFileName: 'data.json' },
  },
  {
    id: id(16),
    request: { method: 'GET', urlPathPattern: '/fault/empty' },
    response: { fault: 'EMPTY_RESPONSE' },
  },
  { id: id(17), request: { method: 'GET', urlPath: '/fault/reset' }, response: { fault: 'CONNECTION_RESET_BY_PEER' } },
  { id: id(18), request: { method: 'GET', urlPath: '/fault/random' }, response: { fault: 'RANDOM_DATA_THEN_CLOSE' } },
  {
    id: id(19),
    request: {
      method: 'GET',
      urlPath: '/negative',
      queryParameters: { q: { doesNotContain: 'bad' }, gone: { absent: true } },
      headers: { 'X-Mode': { equalTo: 'LOUD', caseInsensitive: true } },
    },
    response: { status: 200, fixedDelayMilliseconds: 5, headers: { 'X-Multi': ['one', 'two'] }, body: 'negative' },
  },
  {
    id: id(20),
    request: {
      method: 'POST',
      urlPath: '/strict-json',
      bodyPatterns: [{ equalToJson: '{"a":1,"b":[1,2]}' }, { matchesJsonPath: '$.b[1]' }],
    },
    response: { status: 200, jsonBody: { strict: true } },
  },
  {
    id: id(21),
    priority: 10,
    request: { method: 'ANY', urlPathPattern: '/low/.*' },
    response: { status: 410, body: 'low priority catch-all' },
  },
  {
    id: id(22),
    priority: 3,
    request: { method: 'GET', urlPattern: '/low/keep\\?x=[0-9]+' },
    response: { status: 200, body: 'higher priority' },
  },
  {
    id: id(23),
    request: {
      method: 'POST',
      urlPath: '/pairs',
      bodyPatterns: [{ equalToJson: [{ a: 1 }, { a: 1, b: 2 }], ignoreArrayOrder: true, ignoreExtraElements: true }],
    },
    response: { status: 200, body: 'paired' },
  },
  {
    id: id(24),
    request: { method: 'GET', urlPath: '/framed' },
    response: {
      status: 200,
      headers: { 'Transfer-Encoding': 'chunked', 'Content-Type': 'text/plain' },
      body: 'in chunks',
    },
  },
];

const EXPECTED_OUTCOMES = [
  '200 404 201 404 200 200 200 404 202 404 200 404 403 404 404 204 404 200 404 200 200 404 200 200 200 200 404',
  '200 200 fault fault fault 200 404 404 404 200 404 404 200 410 410 200 404 200',
].join(' ');

const basic = `Basic ${Buffer.from('u:p').toString('base64')}`;
const REQUESTS: { method?: string; url: string; headers?: Record<string, string>; body?: string }[] = [
  { url: '/exact?a=1&b=2' },
  { url: '/exact?b=2&a=1' },
  { url: '/path?q=aB' },
  { url: '/path?q=abc' },
  { url: '/items/7' },
  { url: '/items/7?x=1' },
  { url: '/items/42' },
  { url: '/items/abc' },
  { method: 'POST', url: '/json', body: '{"a":[2,1],"extra":true}', headers: { 'content-type': 'application/json' } },
  { method: 'POST', url: '/json', body: '{"a":[1,3]}', headers: { 'content-type': 'application/json' } },
  {
    method: 'POST',
    url: '/jsonpath',
    body: '{"user":{"name":"ann"}}',
    headers: { 'content-type': 'application/json' },
  },
  {
    method: 'POST',
    url: '/jsonpath',
    body: '{"user":{"name":"bob"}}',
    headers: { 'content-type': 'application/json' },
  },
  { url: '/headers', headers: { 'x-key': 'k-abc' } },
  { url: '/headers', headers: { 'x-key': 'k-abc', 'x-gone': '1' } },
  { url: '/headers', headers: { 'x-key': 'K-ABC' } },
  { method: 'DELETE', url: '/any', headers: { cookie: 'a=b; s=is-live' } },
  { method: 'GET', url: '/any', headers: { cookie: 's=dead' } },
  { url: '/auth', headers: { authorization: basic } },
  { url: '/auth', headers: { authorization: 'Basic eDp5' } },
  { url: '/logic?v=x' },
  { url: '/logic?v=yy' },
  { url: '/logic?v=yz' },
  { url: '/step' },
  { url: '/step' },
  { url: '/step' },
  { method: 'PUT', url: '/contains', body: 'hay needle hay', headers: { 'content-type': 'text/plain' } },
  { method: 'PUT', url: '/contains', body: 'hay', headers: { 'content-type': 'text/plain' } },
  { url: '/files/page', headers: { accept: 'text/html' } },
  { url: '/files/page', headers: { accept: 'application/json' } },
  { url: '/fault/empty' },
  { url: '/fault/reset' },
  { url: '/fault/random' },
  { url: '/negative?q=good', headers: { 'x-mode': 'loud' } },
  { url: '/negative?q=so-bad', headers: { 'x-mode': 'loud' } },
  { url: '/negative?q=good&gone=1', headers: { 'x-mode': 'loud' } },
  { url: '/negative?q=good', headers: { 'x-mode': 'quiet' } },
  {
    method: 'POST',
    url: '/strict-json',
    body: '{"b":[1,2],"a":1.0}',
    headers: { 'content-type': 'application/json' },
  },
  {
    method: 'POST',
    url: '/strict-json',
    body: '{"a":1,"b":[2,1]}',
    headers: { 'content-type': 'application/json' },
  },
  {
    method: 'POST',
    url: '/strict-json',
    body: '{"a":1,"b":[1,2],"c":3}',
    headers: { 'content-type': 'application/json' },
  },
  { url: '/low/keep?x=12' },
  { url: '/low/keep?x=ab' },
  { method: 'DELETE', url: '/low/anything' },
  // The first fit of {"a":1} is the item {"a":1,"b":2} needs: WireMock pairs them the other way.
  { method: 'POST', url: '/pairs', body: '[{"a":1,"b":2},{"a":1}]', headers: { 'content-type': 'application/json' } },
  { method: 'POST', url: '/pairs', body: '[{"a":1,"b":2}]', headers: { 'content-type': 'application/json' } },
  { url: '/framed' },
];

/** The headers a client acts on; Date, lengths and connection handling differ by server and do not count. */
// Content-Encoding too: WireMock gzips for fetch's Accept-Encoding, fetch unzips, and the bodies compared are the decoded ones.
const IGNORED = new Set([
  'content-encoding',
  'date',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'vary',
  'server',
]);

async function answer(base: string, r: (typeof REQUESTS)[number]) {
  let res: Response;
  let bytes: Buffer;
  try {
    res = await fetch(base + r.url, { method: r.method ?? 'GET', headers: r.headers, body: r.body });
    bytes = Buffer.from(await res.arrayBuffer());
  } catch {
    // A fault: the connection broke before a whole answer came (each fault's bytes differ by design).
    return { fault: true };
  }
  const headers: Record<string, string> = {};
  res.headers.forEach((v, k) => {
    if (!IGNORED.has(k) && k !== 'set-cookie') headers[k] = v;
  });
  const cookies = res.headers.getSetCookie();
  const body = bytes.toString('base64');
  // WireMock's 404 for an unmatched request is its own diff report; mockyard's is its own 404: status only.
  return res.status === 404 ? { status: 404 } : { status: res.status, headers, cookies, body };
}

function startWireMock(root: string): Promise<{ child: ChildProcess; url: string }> {
  const require = createRequire(import.meta.url);
  const buildDir = path.join(path.dirname(require.resolve('wiremock/package.json')), 'build');
  const jar = path.join(buildDir, readdirSync(buildDir).find((f) => f.endsWith('.jar'))!);
  const child = spawn(
    'java',
    ['-jar', jar, '--port', '0', '--bind-address', '127.0.0.1', '--disable-banner', '--root-dir', root],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /port:\s+(\d+)/.exec(out);
      if (m) resolve({ child, url: `http://127.0.0.1:${m[1]}` });
    });
    child.once('exit', (code) => reject(new Error(`WireMock exited with ${code}: ${out}`)));
  });
}

describe.skipIf(!hasJava && !needJava)('the same mappings in WireMock 3 and in mockyard', () => {
  let mockyard = '';
  let wiremock: { child: ChildProcess; url: string };

  beforeAll(async () => {
    wiremock = await startWireMock(root);
    mockyard = await app.listen({ port: 0, host: '127.0.0.1' });
    for (const base of [wiremock.url, mockyard]) {
      const res = await fetch(`${base}/__admin/mappings/import`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ mappings: MAPPINGS }),
      });
      expect(res.status, `${base}: ${await res.text()}`).toBe(200);
    }
  }, 60_000);

  afterAll(() => {
    wiremock?.child.kill();
    rmSync(root, { recursive: true, force: true });
  });

  it('answers every request with the same status, headers and body', async () => {
    const differences: string[] = [];
    const outcomes: string[] = [];
    for (const r of REQUESTS) {
      const [theirs, ours] = [await answer(wiremock.url, r), await answer(mockyard, r)];
      outcomes.push('fault' in theirs ? 'fault' : String(theirs.status));
      try {
        expect(ours).toEqual(theirs);
      } catch {
        differences.push(
          `${r.method ?? 'GET'} ${r.url}: WireMock ${JSON.stringify(theirs)} mockyard ${JSON.stringify(ours)}`,
        );
      }
    }
    expect(differences).toEqual([]);
    // The set is varied: not all misses. Statuses as WireMock gave them, in request order.
    expect(outcomes.join(' ')).toBe(EXPECTED_OUTCOMES);
  });

  it('counts the same requests for a verification pattern', async () => {
    const pattern = { method: 'GET', urlPath: '/step' };
    const counts = await Promise.all(
      [wiremock.url, mockyard].map(async (base) => {
        const res = await fetch(`${base}/__admin/requests/count`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(pattern),
        });
        return res.json();
      }),
    );
    expect(counts[1]).toEqual(counts[0]);
    expect(counts[0]).toMatchObject({ count: 3 });
  });
});
