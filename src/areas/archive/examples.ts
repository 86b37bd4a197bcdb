// Requests that work on this store's items: the dashboard offers them to copy.
import type { AreaDocs, AreaExample } from '../../platform/area.js';
import type { FixtureStore } from '../../platform/data/fixture-store.js';
import { encodeFileName } from './files.js';
import { catalogItems, findItem } from './queries.js';

export function archiveExamples(store: FixtureStore): AreaExample[] {
  const items = catalogItems(store).filter((i) => i.status === 'ok');
  return items.slice(0, 3).flatMap((item) => {
    const out: AreaExample[] = [
      {
        title: `Metadata of ${item.identifier}`,
        method: 'GET',
        path: `/metadata/${encodeURIComponent(item.identifier)}`,
      },
    ];
    const file = item.files[0];
    if (file !== undefined) {
      out.push({
        title: `Download ${file}`,
        method: 'GET',
        path: `/download/${encodeURIComponent(item.identifier)}/${encodeFileName(file)}`,
      });
    }
    return out;
  });
}

/** What /docs prefills: the first item that is served, one of its files and its data node. */
export function archiveDocs(store: FixtureStore): AreaDocs {
  const item = catalogItems(store).find((i) => i.status === 'ok');
  if (!item) return { operations: {} };
  const identifier = item.identifier;
  const filename = item.files.find((f) => !f.includes('/')) ?? item.files[0] ?? '';
  const search = { q: `identifier:${identifier}` };
  const file = { identifier, filename };
  return {
    operations: {
      scrapeSearch: { parameters: { ...search, fields: 'identifier,title' } },
      scrapeSearchPost: { parameters: { ...search, fields: 'identifier,title' } },
      advancedSearch: { parameters: { ...search, 'fl[]': ['identifier', 'title'], output: 'json' } },
      getItemMetadata: { parameters: { identifier } },
      getItemMetadataPath: { parameters: { identifier, path: 'metadata' } },
      downloadItemFile: { parameters: file },
      downloadItemFileFromDataNode: { parameters: { ...file, node: String(findItem(store, identifier)?.node ?? 1) } },
    },
  };
}
