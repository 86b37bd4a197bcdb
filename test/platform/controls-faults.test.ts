// Each fault as a real HTTP client on a loopback socket sees it.
import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { SLOW_INTERVAL_MS, SLOW_PIECES } from '../../src/platform/controls/faults.js';
import { controlsApp } from './controls-helpers.js';

interface RawResult {
  status?: number;
  headers?: http.IncomingHttpHeaders;
  body: Buffer;
  error?: NodeJS.ErrnoException;
  complete: boolean;
}

/** http.get that reports what arrived before any error instead of throwing it away. */
function get(url: string, prefer?: string): Promise<RawResult> {
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    const result: RawResult = { body: Buffer.alloc(0), complete: false };
    const done = (error?: NodeJS.ErrnoException) => {
      result.body = Buffer.concat(parts);
      if (error) result.error = error;
      resolve(result);
    };
    const req = http.get(url, { headers: prefer ? { prefer } : {}, agent: false }, (res) => {
      result.status = res.statusCode;
      result.headers = res.headers;
      res.on('data', (chunk: Buffer) => {
        parts.push(chunk);
      });
      res.on('end', () => {
        result.complete = res.complete;
        done();
      });
      res.on('error', (err) => done(err));
    });
    req.on('error', (err) => done(err));
  });
}

describe('Prefer: fault over a real connection', () => {
  it('reset: the connection is reset before any response', async () => {
    const { url } = await controlsApp({}, true);
    const res = await get(`${url}/archive/items/abc`, 'fault=reset');
    expect(res.status).toBeUndefined();
    expect(res.error?.code).toBe('ECONNRESET');
    await expect(fetch(`${url}/archive/items/abc`, { headers: { prefer: 'fault=reset' } })).rejects.toThrow(TypeError);
  });

  it('empty: the connection closes without a byte of response (socket hang up)', async () => {
    const { url } = await controlsApp({}, true);
    const res = await get(`${url}/archive/items/abc`, 'fault=empty');
    expect(res.status).toBeUndefined();
    expect(res.error?.message).toBe('socket hang up');
    expect(res.body.length).toBe(0);
  });

  it('malformed: headers promise the full body, the connection closes after half of it', async () => {
    const { url } = await controlsApp({}, true);
    const whole = await get(`${url}/archive/items/abc?size=4000`);
    expect(whole.complete).toBe(true);
    const res = await get(`${url}/archive/items/abc?size=4000`, 'fault=malformed');
    expect(res.status).toBe(200);
    expect(Number(res.headers?.['content-length'])).toBe(whole.body.length);
    expect(res.complete).toBe(false);
    expect(res.body.length).toBe(Math.floor(whole.body.length / 2));
    expect(whole.body.subarray(0, res.body.length).equals(res.body)).toBe(true);
    // A forced error page can be cut short too.
    const forced = await get(`${url}/archive/items/abc`, 'code=503, fault=malformed');
    expect(forced.status).toBe(503);
    expect(forced.complete).toBe(false);
    // Nothing cut short may be cached, though the whole answer may be.
    const cacheable = await get(`${url}/archive/items/abc?cached=1`);
    expect(cacheable.headers?.['cache-control']).toBe('max-age=3600, public');
    const cut = await get(`${url}/archive/items/abc?cached=1`, 'fault=malformed');
    expect(cut.complete).toBe(false);
    expect(cut.headers?.['cache-control']).toBe('no-store');
    expect(cut.headers?.etag).toBeUndefined();
    // fetch sees the truncation when reading the body.
    const response = await fetch(`${url}/archive/items/abc?size=4000`, { headers: { prefer: 'fault=malformed' } });
    await expect(response.text()).rejects.toThrow();
  });

  it('slow: the whole body arrives, in pieces with a pause between each two', async () => {
    const { app, url } = await controlsApp({}, true);
    // Pauses are counted, not timed: the runtime's sleep is the test's, and each one lets the next piece go.
    const pauses: number[] = [];
    app.runtime.sleep = async (ms) => {
      pauses.push(ms);
    };
    const whole = await get(`${url}/archive/items/abc?size=2000`);
    const res = await get(`${url}/archive/items/abc?size=2000`, 'fault=slow');
    expect(res.status).toBe(200);
    expect(res.complete).toBe(true);
    expect(res.body.equals(whole.body)).toBe(true);
    expect(pauses.length).toBeGreaterThanOrEqual(SLOW_PIECES - 1);
    expect(new Set(pauses)).toEqual(new Set([SLOW_INTERVAL_MS]));
    expect(JSON.parse(res.body.toString())).toEqual({ id: 'abc', data: 'x'.repeat(2000) });
  });

  it('the server keeps serving other clients after each fault', async () => {
    const { url } = await controlsApp({}, true);
    for (const fault of ['reset', 'empty', 'malformed']) await get(`${url}/archive/items/abc`, `fault=${fault}`);
    const res = await fetch(`${url}/archive/items/abc`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: 'abc', data: 'x'.repeat(10) });
  });
});
