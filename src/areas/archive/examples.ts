// Requests that work on this store's items: the dashboard offers them to copy.
import type { AreaExample } from '../../platform/area.js';
import type { FixtureStore } from '../../platform/data/fixture-store.js';
import { catalogItems } from './queries.js';

const segment = (s: string) => s.split('/').map(encodeURIComponent).join('/');

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
        path: `/download/${encodeURIComponent(item.identifier)}/${segment(file)}`,
      });
    }
    return out;
  });
}
