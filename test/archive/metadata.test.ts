import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers/app.js';
import { expectContract } from '../helpers/contract.js';
import { fixtureItems, itemOfStatus, okItems } from './helpers.js';

const { app, store } = await testApp();

describe('GET /archive/metadata/{identifier}', () => {
  it('answers every item record as stored, conforming to the contract', async () => {
    for (const item of fixtureItems(store)) {
      const res = await app.inject(`/archive/metadata/${item.identifier}`);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expectContract('getItemMetadata', res);
      expect(res.json()).toEqual(item.record);
    }
  });

  it('keeps numbers inside files[] as strings and top-level counts as integers', async () => {
    const item = okItems(store)[0]!;
    const body = (await app.inject(`/archive/metadata/${item.identifier}`)).json();
    expect(body.dir).toBe(`/${item.node}/items/${item.identifier}`);
    expect(
      Number.isInteger(body.files_count) && Number.isInteger(body.item_size) && Number.isInteger(body.created),
    ).toBe(true);
    for (const f of body.files) for (const k of ['size', 'mtime']) if (k in f) expect(typeof f[k]).toBe('string');
    expect(body.workable_servers).toContain(body.server);
  });

  it('accepts a trailing slash', async () => {
    const item = okItems(store)[1]!;
    const res = await app.inject(`/archive/metadata/${item.identifier}/`);
    expectContract('getItemMetadata', res);
    expect(res.json()).toEqual(item.record);
  });

  it('answers {} with 200 for an unknown item, ignoring query parameters', async () => {
    for (const url of [
      '/archive/metadata/no-such-item-here',
      '/archive/metadata/no-such-item-here/',
      '/archive/metadata/x?cnt=0&foo=bar',
    ]) {
      const res = await app.inject(url);
      expect(res.statusCode).toBe(200);
      expectContract('getItemMetadata', res);
      expect(res.json()).toEqual({});
    }
  });

  it('marks the dark item as dark with no files, and the unavailable item as servers_unavailable', async () => {
    const dark = (await app.inject(`/archive/metadata/${itemOfStatus(store, 'dark').identifier}`)).json();
    expect(dark).toMatchObject({ is_dark: true, files: [], files_count: 0 });
    const res = await app.inject(`/archive/metadata/${itemOfStatus(store, 'unavailable').identifier}`);
    expectContract('getItemMetadata', res);
    expect(res.json()).toMatchObject({ servers_unavailable: true, workable_servers: [] });
  });
});

describe('GET /archive/metadata/{identifier}/{path}', () => {
  const item = okItems(store)[2]!;

  it('answers {"result": ...} for files, metadata and one metadata field', async () => {
    expect((await app.inject(`/archive/metadata/${item.identifier}/files`)).json()).toEqual({
      result: item.record.files,
    });
    expect((await app.inject(`/archive/metadata/${item.identifier}/metadata`)).json()).toEqual({
      result: item.record.metadata,
    });
    const title = (item.record.metadata as { title: string }).title;
    const res = await app.inject(`/archive/metadata/${item.identifier}/metadata/title`);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toEqual({ result: title });
    expect((await app.inject(`/archive/metadata/${item.identifier}/files/1/name`)).json()).toEqual({
      result: item.record.files[1]!.name,
    });
  });

  it('pages an array with start and count', async () => {
    const res = await app.inject(`/archive/metadata/${item.identifier}/files?start=1&count=2`);
    expect(res.json()).toEqual({ result: item.record.files.slice(1, 3) });
  });

  it('answers {} for an unknown field, index or item', async () => {
    for (const p of [
      `${item.identifier}/metadata/no_such_field`,
      `${item.identifier}/files/999`,
      `${item.identifier}/files/name`,
      'no-such-item/metadata/title',
    ]) {
      const res = await app.inject(`/archive/metadata/${p}`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({});
    }
  });
});
