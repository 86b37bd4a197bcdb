// The journal keeps request and response bodies: masked like headers and queries, cut at --journal-body-bytes.
import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers/app.js';

interface Entry {
  path: string;
  requestBody: string | null;
  responseBody: string | null;
  responseHeaders: Record<string, string>;
}

const last = async (app: Awaited<ReturnType<typeof testApp>>['app']): Promise<Entry> => {
  const res = await app.inject({ url: '/__mockyard/requests?limit=1' });
  return res.json<{ requests: Entry[] }>().requests[0] as Entry;
};

describe('journal bodies', () => {
  it('keeps a JSON request body with secret keys masked, and the answer with its headers', async () => {
    const { app, store } = await testApp();
    const dataset = (store.db.prepare('SELECT id FROM dkan_datasets ORDER BY position LIMIT 1').pluck().get() ??
      '') as string;
    await app.inject({
      method: 'POST',
      url: `/dkan/datastore/query/${dataset}/0`,
      headers: { 'content-type': 'application/json' },
      payload: { limit: 1, api_key: 'hide-me', nested: { password: 'hide-me-too' } },
    });
    const entry = await last(app);
    expect(entry.requestBody).toContain('"limit":1');
    expect(entry.requestBody).toContain('"api_key":"***"');
    expect(entry.requestBody).toContain('"password":"***"');
    expect(entry.requestBody).not.toContain('hide-me');
    expect(entry.responseHeaders['content-type']).toMatch(/json/);
    expect(entry.responseBody?.length).toBeGreaterThan(0);
  });

  it('cuts long bodies at the configured size and says so', async () => {
    const { app } = await testApp({ journalBodyBytes: 40 });
    await app.inject({ url: '/marketcheck/popular/cars?api_key=mockyard-demo&car_type=new' });
    const entry = await last(app);
    expect(entry.responseBody).toMatch(/…\[cut at 40 of \d+ bytes\]$/);
    expect(Buffer.byteLength(entry.responseBody?.split('…[cut')[0] ?? '')).toBeLessThanOrEqual(40);
  });

  it('keeps no bodies with --journal-body-bytes 0', async () => {
    const { app } = await testApp({ journalBodyBytes: 0 });
    await app.inject({ url: '/marketcheck/popular/cars?api_key=mockyard-demo&car_type=new' });
    const entry = await last(app);
    expect(entry.responseBody).toBeNull();
    expect(entry.requestBody).toBeNull();
  });

  it('keeps a long JSON body as masked text cut at the limit, not as its parsed objects', async () => {
    const { app, store } = await testApp({ journalBodyBytes: 200 });
    const dataset = (store.db.prepare('SELECT id FROM dkan_datasets ORDER BY position LIMIT 1').pluck().get() ??
      '') as string;
    const payload = { password: 'hide-me', limit: 1, filler: Array.from({ length: 2000 }, (_, i) => ({ i })) };
    await app.inject({
      method: 'POST',
      url: `/dkan/datastore/query/${dataset}/0`,
      headers: { 'content-type': 'application/json' },
      payload,
    });
    const entry = await last(app);
    const sent = Buffer.byteLength(JSON.stringify(payload));
    expect(entry.requestBody).toMatch(
      new RegExp(`^\\{"password":"\\*\\*\\*","limit":1,.*…\\[cut at 200 of ${sent} bytes\\]$`),
    );
    expect(entry.requestBody).not.toContain('hide-me');
  });
});
