// Admin routes from another site's page (DNS rebinding), admin-token guessing, secrets in the journal, and
// bodies and headers that arrive slowly or pile up.
import net from 'node:net';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config.js';
import {
  TOKEN_FAILURES_ALLOWED,
  TOKEN_WINDOW_MS,
  adminTokenGuard,
  allowedHost,
} from '../../src/platform/admin/admin-guard.js';
import { installBodyBudget } from '../../src/platform/http/body-budget.js';
import { maskHeaders, maskUrl, maskedQuery } from '../../src/platform/controls/journal.js';
import { TokenMask } from '../../src/platform/controls/secrets.js';
import { certificateName } from '../../src/platform/hosts/certificates.js';
import { hostnameOf } from '../../src/platform/hosts/real-hosts.js';
import { startServer } from '../../src/server.js';
import { testApp } from '../helpers/app.js';

const { app } = await testApp({ allowedHosts: 'mockyard,ci-runner.internal' });
const TOKEN = 's3cr3t token/with+signs';
const { app: tokenApp } = await testApp({ adminToken: TOKEN });

const REBOUND = { host: 'evil.example', origin: 'http://evil.example' };

describe('admin routes and a rebound host name', () => {
  it.each([
    ['POST', '/__mockyard/reset', { 'content-type': 'application/json' }, '{}'],
    ['POST', '/__mockyard/reset', { 'x-mockyard-admin': '1' }, undefined],
    ['GET', '/__mockyard/requests', {}, undefined],
    ['PUT', '/__mockyard/scenarios/rebound', { 'content-type': 'application/json' }, '{"appcenter":{}}'],
    ['DELETE', '/__mockyard/requests', { 'x-mockyard-admin': '1' }, undefined],
    ['GET', '/__mockyard/fixtures', {}, undefined],
  ] as const)('%s %s with Host: evil.example gets 403', async (method, url, headers, payload) => {
    const res = await app.inject({ method, url, headers: { ...REBOUND, ...headers }, payload });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ statusCode: 403, error: 'Forbidden' });
    expect(res.json().message).toContain('--allowed-hosts');
  });

  it('nothing was stored or reset by those requests', async () => {
    expect((await app.inject('/__mockyard/scenarios/rebound')).statusCode).toBe(404);
  });

  it.each([
    'localhost:4010',
    'LOCALHOST',
    'app.localhost',
    '127.0.0.1:4010',
    '[::1]:4010',
    '10.1.2.3',
    'mockyard:4010',
    'ci-runner.internal',
    'localhost.',
  ])('Host: %s reaches the journal', async (host) => {
    expect((await app.inject({ url: '/__mockyard/requests', headers: { host } })).statusCode).toBe(200);
  });

  it.each(['evil.example', 'localhost.evil.example', 'mockyard.evil.example', '127.0.0.1.nip.io'])(
    'Host: "%s" does not',
    async (host) => {
      expect((await app.inject({ url: '/__mockyard/requests', headers: { host } })).statusCode).toBe(403);
    },
  );

  it.each(['/__mockyard/health', '/__mockyard/health/', '/%5F%5Fmockyard/health', '/__mockyard/%68ealth'])(
    'health answers any Host (container probes use the pod address or service name): %s',
    async (url) => {
      expect((await app.inject({ url, headers: REBOUND })).statusCode).toBe(200);
    },
  );

  it.each([
    ['GET', '/__admin/mappings'],
    ['POST', '/__admin/reset'],
    ['GET', '/__mockyard'],
    ['OPTIONS', '/__admin/mappings'],
  ] as const)('%s %s (WireMock admin, dashboard, preflight) with Host: evil.example gets 403', async (method, url) => {
    const res = await app.inject({ method, url, headers: { host: REBOUND.host } });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ statusCode: 403, error: 'Forbidden' });
  });

  it('the host is checked before the token: a rebound page learns nothing from a 401', async () => {
    const res = await tokenApp.inject({ url: '/__mockyard/requests', headers: { host: REBOUND.host } });
    expect(res.statusCode).toBe(403);
    expect(res.headers['www-authenticate']).toBeUndefined();
  });

  it('area routes answer any Host', async () => {
    const res = await app.inject({ url: '/appcenter/v0.1/user', headers: REBOUND });
    expect(res.statusCode).not.toBe(403);
  });

  it('the rule: IP literals, localhost, --host and the listed names; * opens it', () => {
    const allowed = allowedHost({ host: '192.168.5.5', allowedHosts: [] });
    expect(allowed('192.168.5.5:80')).toBe(true);
    expect(allowed('mockyard')).toBe(false);
    expect(allowed(undefined)).toBe(false);
    expect(allowedHost({ host: '0.0.0.0', allowedHosts: ['*'] })('anything.example')).toBe(true);
  });
});

describe('admin token guesses', () => {
  const wrong = { authorization: 'Bearer guess' };

  it(`locks a client out with 429 after ${TOKEN_FAILURES_ALLOWED} wrong tokens, the right one included`, async () => {
    for (let i = 0; i < TOKEN_FAILURES_ALLOWED; i++) {
      const res = await tokenApp.inject({ url: '/__mockyard/requests', headers: wrong });
      expect(res.statusCode).toBe(401);
    }
    const locked = await tokenApp.inject({ url: '/__mockyard/requests', headers: wrong });
    expect(locked.statusCode).toBe(429);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    const right = await tokenApp.inject({ url: '/__mockyard/requests', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(right.statusCode).toBe(429);
    // Another client is not locked out.
    const other = await tokenApp.inject({
      url: '/__mockyard/requests',
      headers: { authorization: `Bearer ${TOKEN}` },
      remoteAddress: '10.9.9.9',
    });
    expect(other.statusCode).toBe(200);
  });

  it('counts only tokens sent: requests without one get 401 and do not lock the right token out', async () => {
    const as = { remoteAddress: '10.6.6.6' };
    for (let i = 0; i < TOKEN_FAILURES_ALLOWED * 2; i++) {
      const res = await tokenApp.inject({ url: '/__mockyard/requests', ...as });
      expect(res.statusCode).toBe(401);
    }
    const right = await tokenApp.inject({
      url: '/__mockyard/requests',
      headers: { authorization: `Bearer ${TOKEN}` },
      ...as,
    });
    expect(right.statusCode).toBe(200);
  });

  it('lets the client try again once the window has passed (injected clock)', async () => {
    let now = 1_000_000;
    const guard = adminTokenGuard({ adminToken: 'right' }, { now: () => now })!;
    const small = Fastify();
    small.addHook('onRequest', guard);
    small.get('/x', async () => 'ok');
    const send = (token: string) => small.inject({ url: '/x', headers: { authorization: `Bearer ${token}` } });
    for (let i = 0; i < TOKEN_FAILURES_ALLOWED; i++) expect((await send('wrong')).statusCode).toBe(401);
    expect((await send('right')).statusCode).toBe(429);
    now += TOKEN_WINDOW_MS;
    expect((await send('right')).statusCode).toBe(200);
    await small.close();
  });
});

describe('secrets in the journal and the logs', () => {
  it('masks the admin token in a path, bracket and encoded keys, URLs in headers, Authentication', async () => {
    await tokenApp.inject({
      url: `/archive/metadata/${encodeURIComponent(TOKEN)}?api_key[0][x]=k1&api%5Fkey=k2&api%255Fkey=k3&api.key=k4&page=2`,
      headers: {
        referer: 'http://localhost:3000/cars?api_key=k5&q=ok',
        authentication: 'Token k6',
        'x-original-url': `/x?token=k7`,
      },
    });
    const res = await tokenApp.inject({
      url: '/__mockyard/requests?limit=1',
      headers: { authorization: `Bearer ${TOKEN}` },
      // Not the address the lockout test uses.
      remoteAddress: '10.8.8.8',
    });
    const text = res.body;
    for (const secret of ['k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7', encodeURIComponent(TOKEN)])
      expect(text).not.toContain(secret);
    const [entry] = res.json().requests;
    expect(entry.path).toBe('/archive/metadata/***');
    expect(entry.query.page).toBe('2');
    expect(entry.headers.referer).toBe('http://localhost:3000/cars?api_key=***&q=ok');
  });

  it("masks request bodies that a stub saw, in mockyard's journal and WireMock's /__admin/requests", async () => {
    const admin = { authorization: `Bearer ${TOKEN}` };
    const as = { remoteAddress: '10.7.7.7' };
    const mapping = { request: { method: 'POST', urlPathPattern: '/hooks/.*' }, response: { status: 204 } };
    const made = await tokenApp.inject({
      method: 'POST',
      url: '/__admin/mappings',
      headers: admin,
      payload: mapping,
      ...as,
    });
    expect(made.statusCode).toBe(201);
    await tokenApp.inject({
      method: 'POST',
      url: '/hooks/form',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `q=1&api%5Fkey=hush-1&pass%77ord=hush-2&api_key%5B0%5D%5Bx%5D=hush-3&note=${encodeURIComponent(TOKEN)}`,
    });
    await tokenApp.inject({
      method: 'POST',
      url: '/hooks/json',
      headers: { 'content-type': 'application/json' },
      payload: { q: 1, client_secret: 'hush-4', nested: { token: 'hush-5' }, note: TOKEN },
    });
    const ours = await tokenApp.inject({ url: '/__mockyard/requests?limit=2', headers: admin, ...as });
    const theirs = await tokenApp.inject({ url: '/__admin/requests?limit=2', headers: admin, ...as });
    for (const text of [ours.body, theirs.body]) {
      for (const secret of [
        'hush-1',
        'hush-2',
        'hush-3',
        'hush-4',
        'hush-5',
        encodeURIComponent(TOKEN),
        JSON.stringify(TOKEN),
      ])
        expect(text).not.toContain(secret);
    }
    const [json, form] = ours.json().requests;
    expect(form.requestBody).toBe('q=1&api%5Fkey=***&pass%77ord=***&api_key%5B0%5D%5Bx%5D=***&note=***');
    expect(JSON.parse(json.requestBody)).toEqual({ q: 1, client_secret: '***', nested: { token: '***' }, note: '***' });
    const logged = theirs.json().requests.map((r: { request: { body: string } }) => r.request.body);
    expect(logged).toEqual([json.requestBody, form.requestBody]);
  });

  it('log lines use the same rule', () => {
    const mask = new TokenMask(TOKEN);
    expect(maskUrl('/a?api_key%5B0%5D%5Bx%5D=s1&x=1', null)).toBe('/a?api_key%5B0%5D%5Bx%5D=***&x=1');
    expect(maskUrl(`/t/${TOKEN}`, mask)).toBe('/t/***');
    // Any percent-encoding of the token, in either case of hex, one character or all of them.
    for (const sent of ['s3cr3t%20token%2fwith%2bsigns', '%73%33cr3t token/with%2Bsigns', 's3cr3t+token%2Fwith+signs'])
      expect(maskUrl(`/t/${sent}?q=${sent}`, mask)).toBe('/t/***?q=***');
    expect(maskUrl('/t/s3cr3t-token', mask)).toBe('/t/s3cr3t-token');
    expect(maskedQuery('/a?API+KEY=s', null)).toEqual({ 'API KEY': '***' });
    expect(maskHeaders({ 'proxy-authentication': 'x s' }, null)['proxy-authentication']).not.toContain('s');
  });
});

describe('request bodies in flight', () => {
  it('a body that does not fit the shared budget gets 503 with Retry-After; the budget is freed after', async () => {
    const small = Fastify();
    installBodyBudget(small, () => undefined, 1000);
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    let entered: () => void = () => {};
    const inHandler = new Promise<void>((resolve) => (entered = resolve));
    small.post('/hold', async () => {
      entered();
      await gate;
      return 'done';
    });
    await small.ready();
    const post = (payload: string) =>
      small.inject({ method: 'POST', url: '/hold', headers: { 'content-type': 'text/plain' }, payload });
    const held = post('x'.repeat(600));
    await inHandler;
    const refused = await post('y'.repeat(600));
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    open();
    expect((await held).statusCode).toBe(200);
    expect((await post('z'.repeat(600))).statusCode).toBe(200);
    await small.close();
  });
  it('a body refused before it is read still gets its 413 over a socket, not a reset (EPIPE)', async () => {
    const server = await startServer(resolveConfig({ logLevel: 'silent', port: 0 }));
    try {
      const json = { 'content-type': 'application/json' };
      const put = JSON.stringify({
        archive: { items: [{ identifier: 'x', files: [{ name: 'a', content: 'x'.repeat(21e6) }] }] },
      });
      const post = JSON.stringify({ conditions: [], pad: 'x'.repeat(5e6) });
      for (let i = 0; i < 3; i++) {
        const scenario = await fetch(`${server.url}/__mockyard/scenarios/big`, {
          method: 'PUT',
          headers: json,
          body: put,
        });
        expect(scenario.status).toBe(413);
        expect(await scenario.json()).toMatchObject({ statusCode: 413, error: 'Payload Too Large' });
        const dkan = await fetch(`${server.url}/dkan/datastore/query`, { method: 'POST', headers: json, body: post });
        expect(dkan.status).toBe(413);
        expect(await dkan.json()).toMatchObject({ status: 413 });
      }
      // The rest of the body is read and dropped, so the connection serves the next request.
      const answers = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(Number(new URL(server.url).port), '127.0.0.1');
        let text = '';
        socket.on('data', (c) => (text += c.toString('latin1')));
        socket.on('close', () => resolve(text));
        socket.on('error', reject);
        socket.write(
          `POST /dkan/datastore/query HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${post.length}\r\n\r\n`,
        );
        socket.write(post);
        socket.write('GET /__mockyard/health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
      });
      expect(answers.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 413', 'HTTP/1.1 200']);
    } finally {
      await server.close();
    }
  });
});

describe('slow clients', () => {
  it('a client that never finishes its headers is answered 408 and closed (--headers-timeout)', async () => {
    const config = resolveConfig({ logLevel: 'silent', port: 0, headersTimeout: 200, bodyTimeout: 400 });
    const server = await startServer(config);
    try {
      const port = Number(new URL(server.url).port);
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(port, '127.0.0.1', () =>
          socket.write('GET /__mockyard/health HTTP/1.1\r\nHost: x\r\n'),
        );
        let text = '';
        socket.on('data', (c) => (text += c.toString('latin1')));
        socket.on('close', () => resolve(text));
        socket.on('error', reject);
      });
      expect(answer).toMatch(/^HTTP\/1\.1 408/);
      const body = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(port, '127.0.0.1', () =>
          socket.write(
            'PUT /__mockyard/scenarios/slow HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{',
          ),
        );
        let text = '';
        socket.on('data', (c) => (text += c.toString('latin1')));
        socket.on('close', () => resolve(text));
        socket.on('error', reject);
      });
      expect(body).toMatch(/^HTTP\/1\.1 408/);
    } finally {
      await server.close();
    }
  });
});

describe('proxy names', () => {
  it('the root trailing dot names the same host with a port too (CONNECT archive.org.:443)', () => {
    expect(hostnameOf('archive.org.:443')).toBe('archive.org');
    expect(hostnameOf('archive.org.')).toBe('archive.org');
    expect(hostnameOf('[::1]:443')).toBe('::1');
  });

  it('one wildcard certificate covers the names one label below a parent', () => {
    expect(certificateName('a1.archive.org')).toBe('*.archive.org');
    expect(certificateName('ia600.us.archive.org')).toBe('*.us.archive.org');
    expect(certificateName('archive.org')).toBe('archive.org');
    expect(certificateName('x.co.uk')).toBe('x.co.uk');
    expect(certificateName('127.0.0.1')).toBe('127.0.0.1');
  });
});
