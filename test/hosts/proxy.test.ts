// mockyard as the forward proxy of Node's fetch (with undici's ProxyAgent): every area under its real host and
// base path, over CONNECT + TLS and absolute-form HTTP; unknown hosts refused without any outbound connection.
import { createHash } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import net from 'node:net';
import { readFileSync } from 'node:fs';
import { ProxyAgent } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { expectContract } from '../helpers/contract.js';
import {
  type Answer,
  catalogOf,
  clearJournal,
  journal,
  readAnswer,
  realOperations,
  startHosted,
  type Hosted,
} from './helpers.js';

/** Node's own fetch, sent through mockyard with undici's ProxyAgent (Node's fetch is undici underneath). */
function proxiedFetch(agent: ProxyAgent, url: string, init: RequestInit = {}): Promise<Response> {
  // The cast: Node's bundled undici types and the undici package's are separate declarations of one interface.
  return fetch(url, { ...init, dispatcher: agent } as unknown as RequestInit);
}

async function viaProxy(
  agent: ProxyAgent,
  url: string,
  init: { headers?: Record<string, string>; redirect?: 'manual' } = {},
): Promise<Answer> {
  const res = await proxiedFetch(agent, url, { headers: init.headers, redirect: init.redirect ?? 'follow' });
  const body = Buffer.from(await res.arrayBuffer());
  return { statusCode: res.status, headers: Object.fromEntries(res.headers), body: body.toString('latin1') };
}

/** A request in absolute form, as clients configured with HTTP_PROXY send plain-HTTP requests. */
function absoluteForm(port: number, target: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path: target, headers: { host: new URL(target).host, ...headers }, agent: false },
      (res) => {
        readAnswer(res).then(resolve, reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Sends CONNECT and returns the proxy's whole answer (status line, headers, body). */
function rawConnect(port: number, authority: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () =>
      socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`),
    );
    let text = '';
    socket.on('data', (c: Buffer) => (text += c.toString('utf8')));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
}

/** A keep-alive HTTPS agent whose one socket is a CONNECT tunnel through mockyard, as Python's and curl's proxies open it. */
class TunnelAgent extends https.Agent {
  tunnels = 0;
  constructor(
    private readonly proxyPort: number,
    private readonly ca: string,
  ) {
    super({ keepAlive: true, maxSockets: 1 });
  }

  override createConnection(
    options: { host?: string; port?: number; servername?: string },
    callback: (err: Error | null, socket?: Duplex) => void,
  ): undefined {
    const authority = `${options.host}:${options.port ?? 443}`;
    const raw = net.connect(this.proxyPort, '127.0.0.1', () =>
      raw.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`),
    );
    raw.once('error', callback);
    raw.once('data', (chunk: Buffer) => {
      if (!/^HTTP\/1\.1 200 /.test(chunk.toString('latin1')))
        return callback(new Error(`tunnel refused: ${chunk.toString('latin1')}`));
      this.tunnels++;
      callback(
        null,
        tls.connect({
          socket: raw,
          servername: options.servername ?? options.host,
          ca: this.ca,
          ALPNProtocols: ['http/1.1'],
        }),
      );
    });
    return undefined;
  }
}

function httpsGet(agent: https.Agent, url: string, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    https
      .get(url, { agent, headers }, (res) => {
        readAnswer(res).then(resolve, reject);
      })
      .on('error', reject);
  });
}

describe('forward proxy with real host names', () => {
  let hosted: Hosted;
  let agent: ProxyAgent;
  let port: number;

  beforeAll(async () => {
    hosted = await startHosted({ hostMap: 'data.example.gov=dkan,*.example.test=archive' });
    port = Number(new URL(hosted.server.url).port);
    agent = new ProxyAgent({ uri: hosted.server.url, requestTls: { ca: readFileSync(hosted.caPath, 'utf8') } });
  });
  afterAll(() => agent?.close());

  it('serves one operation of every area under its real host and base path, as its contract says', async () => {
    const operations = await realOperations(hosted.server);
    expect(new Set(operations.map((o) => o.area))).toEqual(
      new Set(['archive', 'marketcheck', 'appcenter', 'agco', 'dkan']),
    );
    await clearJournal(hosted.server);
    for (const op of operations) {
      const res = await viaProxy(agent, op.url, { headers: op.headers });
      expect(res.statusCode, op.url).toBe(200);
      expectContract(op.operationId, res);
    }
    // The journal still files each request under its area, with the host the client called.
    const entries = (await journal(hosted.server)).reverse();
    expect(entries.map((e) => [e.area, e.path, e.status])).toEqual(operations.map((o) => [o.area, o.journalPath, 200]));
    expect(entries.map((e) => e.headers.host)).toEqual(operations.map((o) => new URL(o.url).host));
  });

  it('keeps a tunnel open for several requests (keep-alive inside TLS)', async () => {
    const [op] = (await realOperations(hosted.server)).filter((o) => o.area === 'appcenter');
    const agent = new TunnelAgent(port, readFileSync(hosted.caPath, 'utf8'));
    try {
      for (let i = 0; i < 3; i++) {
        const res = await httpsGet(agent, op!.url, op!.headers);
        expect(res.statusCode).toBe(200);
        expectContract(op!.operationId, res);
      }
    } finally {
      agent.destroy();
    }
    expect(agent.tunnels).toBe(1);
  });

  it('serves absolute-form requests by their host, and keeps the prefixes for 127.0.0.1', async () => {
    const c = await catalogOf(hosted.server);
    const id = c.archive.items.find((i) => i.status === 'ok')!.identifier;
    const real = await absoluteForm(port, `http://archive.org/metadata/${id}`);
    expect(real.statusCode).toBe(200);
    expectContract('getItemMetadata', real);
    const local = await absoluteForm(port, `http://127.0.0.1:${port}/archive/metadata/${id}`);
    expect(local.statusCode).toBe(200);
    expect(local.body).toBe(real.body);
    // The target reaches the area as sent, dot segments and all, so the archive's traversal guard sees it.
    for (const target of [
      `http://archive.org/download/${id}/../../../etc/passwd`,
      `http://archive.org/download/${id}/..%2f..%2f..%2fetc%2fpasswd`,
    ]) {
      const res = await absoluteForm(port, target);
      expect([400, 403, 404], target).toContain(res.statusCode);
      expect(res.headers['content-type'], target).toMatch(/^text\/html/);
    }
    const dataset = c.dkan.datasets[0]!.id;
    const cms = await absoluteForm(
      port,
      `http://data.cms.gov/provider-data/api/1/datastore/query/${dataset}/0?limit=1`,
    );
    expect(cms.statusCode).toBe(200);
    expectContract('datastore-datasetindex-query-get', cms);
  });

  it('serves plain-HTTP URLs through the proxy too, for real hosts and for mockyard’s own address', async () => {
    const c = await catalogOf(hosted.server);
    const id = c.archive.items.find((i) => i.status === 'ok')!.identifier;
    const real = await viaProxy(agent, `http://archive.org/metadata/${id}`);
    expect(real.statusCode).toBe(200);
    expectContract('getItemMetadata', real);
    const own = await viaProxy(agent, `${hosted.server.url}/archive/metadata/${id}`);
    expect(own.statusCode).toBe(200);
    expect(own.body).toBe(real.body);
  });

  it('answers a path outside the real base path with the area’s own 404', async () => {
    const c = await catalogOf(hosted.server);
    const dataset = c.dkan.datasets[0]!.id;
    const outside = await viaProxy(agent, `https://data.medicaid.gov/datastore/query/${dataset}/0`);
    expect(outside.statusCode).toBe(404);
    expectContract('datastore-datasetindex-query-get', outside);
    const prefixed = await viaProxy(
      agent,
      `https://marketcheck-prod.apigee.net/marketcheck/popular/cars?api_key=${c.marketcheck.apiKeys[0]}&car_type=new`,
    );
    expect(prefixed.statusCode).toBe(404);
  });

  it('serves hosts added with --host-map at the area’s real base path', async () => {
    const c = await catalogOf(hosted.server);
    const dataset = c.dkan.datasets[0]!.id;
    const dkan = await viaProxy(agent, `https://data.example.gov/api/1/datastore/query/${dataset}/0?limit=1`);
    expect(dkan.statusCode).toBe(200);
    expectContract('datastore-datasetindex-query-get', dkan);
    const id = c.archive.items.find((i) => i.status === 'ok')!.identifier;
    const archive = await viaProxy(agent, `https://mirror.example.test/metadata/${id}`);
    expect(archive.statusCode).toBe(200);
    expect((JSON.parse(archive.body) as { metadata: { identifier: string } }).metadata.identifier).toBe(id);
  });

  it('survives clients that misbehave in a tunnel, and still serves', async () => {
    const misbehave = (payload: string | null, authority = 'archive.org:443') =>
      new Promise<void>((resolve) => {
        const socket = net.connect(port, '127.0.0.1', () =>
          socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`),
        );
        socket.once('data', () => (payload === null ? socket.destroy() : socket.write(payload)));
        socket.on('close', () => resolve());
        socket.on('error', () => resolve());
        setTimeout(() => socket.destroy(), 2000);
      });
    await misbehave(null);
    await misbehave('GET / HTTP/1.1\r\nHost: archive.org\r\n\r\n'); // plain HTTP where TLS is due
    await misbehave('\x16\x03\x01\x00\x05garbage'); // a broken handshake
    const answer = await rawConnect(port, ':443');
    expect(answer).toMatch(/^HTTP\/1\.1 400 [\s\S]*host:port/);
    const health = await fetch(`${hosted.server.url}/__mockyard/health`);
    expect(health.status).toBe(200);
  });

  describe('unknown hosts', () => {
    const outbound: unknown[][] = [];
    beforeAll(() => {
      // Every connection made in this process goes through Socket#connect; only the test's own to mockyard may appear.
      const original = net.Socket.prototype.connect;
      const spy = vi.spyOn(net.Socket.prototype, 'connect').mockImplementation(function (
        this: net.Socket,
        ...args: unknown[]
      ) {
        outbound.push(args);
        return (original as (...a: unknown[]) => net.Socket).apply(this, args);
      });
      return () => spy.mockRestore();
    });

    it("answers an Expect it does not know with 417 in mockyard's body", async () => {
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(port, '127.0.0.1', () =>
          socket.write(
            'GET /__mockyard/health HTTP/1.1\r\nHost: localhost\r\nExpect: foo\r\nConnection: close\r\n\r\n',
          ),
        );
        let text = '';
        socket.on('data', (c: Buffer) => (text += c.toString('utf8')));
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
      });
      expect(answer).toMatch(/^HTTP\/1\.1 417 /);
      const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
      expect(body).toMatchObject({ statusCode: 417, error: 'Expectation Failed' });
      expect(body.message).toContain('Expect: foo');
    });

    it('refuses CONNECT with 403 naming the host and --host-map', async () => {
      const answer = await rawConnect(port, 'example.com:443');
      expect(answer).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n/);
      const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
      expect(body).toMatchObject({ statusCode: 403, error: 'Forbidden' });
      expect(body.message).toContain('does not serve example.com');
      expect(body.message).toContain('--host-map example.com=');
      await expect(viaProxy(agent, 'https://unknown.example.org/')).rejects.toThrow();
    });

    it('refuses absolute-form requests with 403 naming the host and --host-map', async () => {
      const res = await absoluteForm(port, 'http://example.com/metadata/x');
      expect(res.statusCode).toBe(403);
      expect(JSON.parse(res.body)).toMatchObject({ statusCode: 403, error: 'Forbidden' });
      expect(res.body).toContain('does not serve example.com');
      expect(res.body).toContain('--host-map');
    });

    it('never opened a connection anywhere but mockyard itself', () => {
      expect(outbound.length).toBeGreaterThan(0);
      for (const args of outbound) {
        const first = args[0] as unknown;
        const target = Array.isArray(first)
          ? (first[0] as { port?: number; host?: string })
          : typeof first === 'object'
            ? (first as { port?: number; host?: string })
            : { port: Number(first), host: args[1] as string };
        expect([target.host, Number(target.port)], JSON.stringify(args.slice(0, 2))).toEqual(['127.0.0.1', port]);
      }
    });
  });
});

describe('archive redirects under the real host', () => {
  let hosted: Hosted;
  let agent: ProxyAgent;
  beforeAll(async () => {
    hosted = await startHosted({ archiveRedirect: true });
    agent = new ProxyAgent({ uri: hosted.server.url, requestTls: { ca: readFileSync(hosted.caPath, 'utf8') } });
  });
  afterAll(() => agent?.close());

  it('sends the client to the item’s data node, https://{server}{dir}/{file}, which answers through the proxy', async () => {
    const c = await catalogOf(hosted.server);
    const id = c.archive.items.find((i) => i.status === 'ok')!.identifier;
    const record = JSON.parse((await viaProxy(agent, `https://archive.org/metadata/${id}`)).body) as {
      server: string;
      dir: string;
      files: { name: string; md5: string }[];
    };
    const file = record.files.find((f) => !f.name.includes('/'))!;
    const hop = await viaProxy(agent, `https://archive.org/download/${id}/${encodeURIComponent(file.name)}`, {
      redirect: 'manual',
    });
    expect(hop.statusCode).toBe(302);
    expect(hop.headers.location).toBe(`https://${record.server}${record.dir}/${encodeURIComponent(file.name)}`);
    expect(record.server).toMatch(/^ia\d+\.us\.archive\.org$/);
    const followed = await proxiedFetch(agent, `https://archive.org/download/${id}/${encodeURIComponent(file.name)}`);
    expect(followed.status).toBe(200);
    expect(
      createHash('md5')
        .update(Buffer.from(await followed.arrayBuffer()))
        .digest('hex'),
    ).toBe(file.md5);
  });

  it('keeps the mock-relative redirect for requests under 127.0.0.1', async () => {
    const c = await catalogOf(hosted.server);
    const id = c.archive.items.find((i) => i.status === 'ok')!.identifier;
    const res = await fetch(`${hosted.server.url}/archive/download/${id}/__ia_thumb.jpg`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toMatch(
      new RegExp(`^${hosted.server.url}/archive/\\d+/items/${id}/__ia_thumb\\.jpg$`),
    );
  });
});
