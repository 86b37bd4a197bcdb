import { describe, expect, it } from 'vitest';
import { expectContract } from '../helpers/contract.js';
import { testApp } from '../helpers/app.js';

const { app, store } = await testApp();

interface Item {
  identifier: string;
  status: string;
  mediatype: string;
  metadata: Record<string, string | string[]>;
}
const items: Item[] = (
  store.db.prepare('SELECT identifier, status, mediatype, record FROM archive_items ORDER BY position').all() as {
    identifier: string;
    status: string;
    mediatype: string;
    record: string;
  }[]
).map((r) => ({ ...r, metadata: (JSON.parse(r.record) as { metadata: Record<string, string | string[]> }).metadata }));
const searchable = items.filter((i) => i.status !== 'dark');
const byId = (ids: string[]) => [...ids].sort();

async function scrape(query: Record<string, string>, method: 'GET' | 'POST' = 'GET') {
  const res = await app.inject({ method, url: `/archive/services/search/v1/scrape?${new URLSearchParams(query)}` });
  expectContract(method === 'GET' ? 'scrapeSearch' : 'scrapeSearchPost', res);
  return res;
}
async function advanced(query: string) {
  const res = await app.inject({ url: `/archive/advancedsearch.php?${query}` });
  expectContract('advancedSearch', res);
  return res;
}

describe('archive scrape', () => {
  it('*:* finds every item but the dark one, in identifier order, with total and no cursor on the last page', async () => {
    const body = (await scrape({ q: '*:*' })).json() as {
      items: { identifier: string }[];
      total: number;
      cursor?: string;
    };
    expect(body.total).toBe(searchable.length);
    expect(body.items.map((i) => i.identifier)).toEqual(byId(searchable.map((i) => i.identifier)));
    expect(body.cursor).toBeUndefined();
  });

  it('field queries, AND/OR/NOT, quotes and wildcards find exactly the matching fixture items', async () => {
    const audio = searchable.filter((i) => i.mediatype === 'audio').map((i) => i.identifier);
    const check = async (q: string, expected: string[]) => {
      const body = (await scrape({ q, count: '100' }, 'POST')).json() as { items: { identifier: string }[] };
      expect(
        body.items.map((i) => i.identifier),
        q,
      ).toEqual(byId(expected));
    };
    await check('mediatype:audio', audio);
    await check(
      'mediatype:(audio OR movies)',
      searchable.filter((i) => ['audio', 'movies'].includes(i.mediatype)).map((i) => i.identifier),
    );
    await check(
      'collection:community AND NOT mediatype:texts',
      searchable
        .filter((i) => (i.metadata.collection as string[]).includes('community') && i.mediatype !== 'texts')
        .map((i) => i.identifier),
    );
    const one = searchable[0]!;
    await check(
      `title:"${one.metadata.title}"`,
      searchable.filter((i) => i.metadata.title === one.metadata.title).map((i) => i.identifier),
    );
    await check(
      `identifier:${one.identifier.slice(0, 4)}*`,
      searchable.filter((i) => i.identifier.startsWith(one.identifier.slice(0, 4))).map((i) => i.identifier),
    );
    await check(
      '-mediatype:audio',
      searchable.filter((i) => i.mediatype !== 'audio').map((i) => i.identifier),
    );
  });

  it('fields returns the item metadata; total_only returns the count; a cursor pages on', async () => {
    const body = (await scrape({ q: 'mediatype:texts', fields: 'title,collection' })).json() as {
      items: Record<string, unknown>[];
    };
    for (const it of body.items) {
      const item = searchable.find((i) => i.identifier === it.identifier)!;
      expect(it).toEqual({
        identifier: item.identifier,
        title: item.metadata.title,
        collection: item.metadata.collection,
      });
    }
    expect((await scrape({ q: '*:*', total_only: 'true' })).json()).toEqual({
      items: [],
      count: 0,
      total: searchable.length,
    });
    expect((await scrape({ q: 'year:[1900 TO 2100]', sorts: 'year desc' })).statusCode).toBe(200);
  });

  it('malformed queries and cursors are a 400 with an error message', async () => {
    for (const q of ['title:"open', '(a OR b', 'year:[1 TO', '']) {
      const res = await scrape({ q });
      expect(res.statusCode, q).toBe(400);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.json()).toEqual({ error: expect.any(String), errorType: 'QueryError' });
    }
    expect((await scrape({ q: '*:*', cursor: 'bm9wZQ==' })).statusCode).toBe(400);
  });
});

describe('archive advancedsearch.php', () => {
  it('pages with rows and page, numFound counts every match, fl[] picks fields, sort[] orders', async () => {
    const res = await advanced('q=*:*&fl[]=identifier&fl[]=mediatype&sort[]=identifier+desc&rows=3&page=2&output=json');
    const body = res.json() as { response: { numFound: number; start: number; docs: { identifier: string }[] } };
    expect(body.response.numFound).toBe(searchable.length);
    expect(body.response.start).toBe(3);
    const all = byId(searchable.map((i) => i.identifier)).reverse();
    expect(body.response.docs).toEqual(
      all
        .slice(3, 6)
        .map((id) => ({ identifier: id, mediatype: searchable.find((i) => i.identifier === id)!.mediatype })),
    );
  });

  it('multi-valued fields are arrays; bad queries and deep pages are 400', async () => {
    const body = (await advanced('q=mediatype:image&fl[0]=identifier&fl[1]=collection&output=json')).json() as {
      response: { docs: { collection: unknown }[] };
    };
    for (const d of body.response.docs) expect(Array.isArray(d.collection)).toBe(true);
    expect((await advanced('q=(oops&output=json')).statusCode).toBe(400);
    const deep = await advanced('q=*:*&rows=100&page=200&output=json');
    expect(deep.statusCode).toBe(400);
    // Solr's error answer echoes the parameters it read, as a 200 does.
    expect(deep.json()).toEqual({
      responseHeader: {
        status: 400,
        QTime: 0,
        params: { query: '*:*', qin: '*:*', fields: '', wt: 'json', rows: '100', start: 19900 },
      },
      error: { msg: expect.stringContaining('10000'), code: 400 },
    });
  });
});
