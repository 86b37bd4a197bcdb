// A proxy stub's bounds: a proxyBaseUrl that leads back to this mockyard, and an upstream answer past the limit.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_PROXY_BODY_BYTES } from '../../src/stubs/answer.js';
import { testApp } from '../helpers/app.js';
import { rawGet } from '../helpers/raw-get.js';
import { addMapping } from '../helpers/stubs.js';

const { app } = await testApp();
await app.listen({ port: 0, host: '127.0.0.1' });
const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
const port = (app.server.address() as AddressInfo).port;

const stub = (mapping: object) => addMapping(app, mapping);

describe('a proxy stub', () => {
  it('that leads back to this mockyard is refused on its second pass, with the Via header that tells', async () => {
    await stub({ request: { method: 'ANY', urlPath: '/loop' }, response: { proxyBaseUrl: base } });
    const res = await rawGet(port, '/loop');
    // The first pass forwarded once; the second found itself named in Via and answered 500, which the
    // first relays.
    expect(res.status).toBe(500);
    expect(res.body.toString()).toContain('loop');
    expect((await rawGet(port, '/__mockyard/health')).status).toBe(200);
  });

  it('relays an answer up to the limit and refuses a longer one without reading it all', async () => {
    let sent = 0;
    const upstream = http.createServer((req, res) => {
      // No Content-Length: the size is known only by reading.
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(1024 * 1024, 1);
      const size = req.url === '/big' ? 64 * 1024 * 1024 : 1024 * 1024;
      const pump = () => {
        while (sent < size) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      sent = 0;
      pump();
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    afterAll(() => new Promise<void>((resolve) => upstream.close(() => resolve())));
    const up = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    await stub({ request: { method: 'GET', urlPathPattern: '/(big|small)' }, response: { proxyBaseUrl: up } });
    const small = await rawGet(port, '/small');
    expect(small.status).toBe(200);
    expect(small.body.length).toBe(1024 * 1024);
    const big = await rawGet(port, '/big');
    expect(big.status).toBe(500);
    expect(big.body.toString()).toContain(`over ${MAX_PROXY_BODY_BYTES} bytes`);
    // Stopped reading a little past the limit, not at the upstream's end.
    expect(sent).toBeLessThan(64 * 1024 * 1024);
  });
});
