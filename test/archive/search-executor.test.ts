// Archive searches read every item: they run on the query executor, under the work budget, never on the event loop.
import { describe, expect, it, vi } from 'vitest';
import { testApp } from '../helpers/app.js';
import { expectContract } from '../helpers/contract.js';
import { inScenario, putScenario } from '../scenarios/helpers.js';

const { app } = await testApp({ queryTimeout: 300 });

// Items whose descriptions a long wildcard term takes far longer than the budget to test: after its `*`, each of
// the 20,000 places is tried against 4,000 characters of pattern, twice per item (the value, and it as a word).
await putScenario(app, 'long-texts', {
  archive: {
    items: Array.from({ length: 400 }, (_, i) => ({
      identifier: `long-${i}`,
      metadata: { title: `Long ${i}`, mediatype: 'texts', description: 'a'.repeat(20_000) },
      files: [{ name: 'x.txt', content: 'x' }],
    })),
  },
});

describe('archive search on the query executor', () => {
  it('sends scrape and advanced searches to the executor and answers what it finds', async () => {
    const runTask = vi.spyOn(app.queryPool, 'runTask');
    try {
      const scrape = await app.inject('/archive/services/search/v1/scrape?q=mediatype:texts&count=100');
      expectContract('scrapeSearch', scrape);
      expect(scrape.statusCode).toBe(200);
      const advanced = await app.inject(
        '/archive/advancedsearch.php?q=mediatype:texts&fl[]=identifier&rows=3&output=json',
      );
      expectContract('advancedSearch', advanced);
      expect(advanced.json()).toMatchObject({
        responseHeader: { status: 0, params: { rows: '3' } },
        response: { start: 0 },
      });
      expect(runTask.mock.calls.map((c) => c[1])).toEqual(['archive:search', 'archive:search']);
      // Both answers are kept by the answer cache: asked again, no query process is asked.
      const again = await app.inject(
        '/archive/advancedsearch.php?q=mediatype:texts&fl[]=identifier&rows=3&output=json',
      );
      expect(again.rawPayload.equals(advanced.rawPayload)).toBe(true);
      expect((await app.inject('/archive/services/search/v1/scrape?q=mediatype:texts&count=100')).body).toBe(
        scrape.body,
      );
      expect(runTask).toHaveBeenCalledTimes(2);
    } finally {
      runTask.mockRestore();
    }
  });

  it('a malformed query is answered 400 by the server itself, without a query process', async () => {
    const runTask = vi.spyOn(app.queryPool, 'runTask');
    try {
      const res = await app.inject('/archive/advancedsearch.php?q=title:(open&output=json');
      expect(res.statusCode).toBe(400);
      expect(runTask).not.toHaveBeenCalled();
    } finally {
      runTask.mockRestore();
    }
  });

  it('answers a page of megabytes whole, as it crossed from the query process in slices', async () => {
    const res = await app.inject({
      url: '/archive/advancedsearch.php?q=mediatype:texts&rows=400&output=json',
      headers: inScenario('long-texts'),
    });
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.length).toBeGreaterThan(8_000_000);
    expect(Number(res.headers['content-length'])).toBe(res.rawPayload.length);
    const body = res.json() as { response: { numFound: number; docs: { identifier: string; description: string }[] } };
    expect(body.response.numFound).toBe(400);
    expect(body.response.docs.map((d) => d.identifier)).toEqual(Array.from({ length: 400 }, (_, i) => `long-${i}`));
    expect(body.response.docs.every((d) => d.description === 'a'.repeat(20_000))).toBe(true);
  });

  it('a search over the budget is stopped and answered 400 in the search API error shape, naming the budget', async () => {
    const q = `description:*${'a'.repeat(4_000)}b`;
    const res = await app.inject({
      url: `/scenarios/long-texts/archive/advancedsearch.php?${new URLSearchParams({ q, 'fl[]': 'identifier', output: 'json' })}`,
    });
    expect(res.statusCode).toBe(400);
    expectContract('advancedSearch', res);
    expect(res.body).toContain('ran longer than 300 ms and was stopped');
    // The executor is free again: the next search is answered.
    const next = await app.inject({
      url: '/scenarios/long-texts/archive/advancedsearch.php?q=title:long&rows=1&output=json',
      headers: inScenario('long-texts'),
    });
    expect(next.statusCode).toBe(200);
    expect((next.json() as { response: { numFound: number } }).response.numFound).toBe(400);
  });
});
