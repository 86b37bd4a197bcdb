// The metastore: each dataset of the catalog as DKAN stores and answers it (DCAT-US JSON), derived once per
// store from the same tables the datastore queries, so the two always list the same distributions.
// DKAN keeps theme, keyword, publisher and distribution as referenced items (metastore.settings.yml
// property_list); how each form shows them follows MetastoreService::swapReferences / removeReferences
// and Reference\Dereferencer.
import { createHash } from 'node:crypto';
import { uuidFromName } from '../../../fixtures/dkan/layout.js';
import type { FixtureStore } from '../../platform/data/fixture-store.js';
import { catalogOf, type Resource } from './datasets.js';

/** A referenced item as the metastore serves it: `{identifier, data}`. */
export interface Item {
  identifier: string;
  data: unknown;
}
type Json = Record<string, unknown>;

export interface MetastoreDataset {
  id: string;
  /** `GET .../items/{id}`: references replaced by their values. */
  plain: Json;
  /** With show-reference-ids: each referenced value as `{identifier, data}`. */
  referenced: Json;
  /** What the search index returns (MetastoreService::get): values, then each `%Ref:<property>`. */
  indexed: Json;
  /** Facet values of this dataset, by facet type. */
  facets: Record<FacetType, string[]>;
}

export const FACET_TYPES = ['theme', 'keyword', 'publisher__name'] as const;
export type FacetType = (typeof FACET_TYPES)[number];

export interface Metastore {
  datasets: MetastoreDataset[];
  byId: Map<string, MetastoreDataset>;
  /** The non-dataset schemas' items (distribution, keyword, theme, publisher), in first-seen order. */
  items: Map<string, Item[]>;
}

/** Resource versions: the import time DKAN appends (notImported's message uses the same one). */
const VERSION = '1767225600';
const DEFAULT_MODIFIED = '2026-01-01';
const FILES = 'https://data.medicaid.gov/sites/default/files/uploaded_resources';

const ref = (schema: string, value: string): string => uuidFromName(`${schema}:${value}`);

function distributionItem(resource: Resource): { plain: Json; item: Item } {
  const downloadURL = `${FILES}/${resource.distributionId}.csv`;
  const plain: Json = {
    '@type': 'dcat:Distribution',
    downloadURL,
    mediaType: 'text/csv',
    format: 'csv',
    title: resource.title,
  };
  // DataResource: a resource id is the md5 of its file path, with the import version.
  const identifier = createHash('md5').update(downloadURL).digest('hex');
  const file = { filePath: downloadURL, identifier, mimeType: 'text/csv', perspective: 'source', version: VERSION };
  const data = { ...plain, '%Ref:downloadURL': [{ identifier: `${identifier}__${VERSION}__source`, data: file }] };
  return { plain, item: { identifier: resource.distributionId, data } };
}

function build(store: FixtureStore): Metastore {
  const items = new Map<string, Item[]>();
  const seen = new Set<string>();
  const keep = (schema: string, item: Item): Item => {
    if (!seen.has(`${schema}\0${item.identifier}`)) {
      seen.add(`${schema}\0${item.identifier}`);
      items.set(schema, [...(items.get(schema) ?? []), item]);
    }
    return item;
  };
  const datasets = catalogOf(store).datasets.map((d): MetastoreDataset => {
    const m = d.metadata;
    const keyword = (m.keyword ?? []).map((k) => keep('keyword', { identifier: ref('keyword', k), data: k }));
    const theme = (m.theme ?? []).map((t) => keep('theme', { identifier: ref('theme', t), data: t }));
    const publisher = m.publisher
      ? keep('publisher', {
          identifier: ref('publisher', m.publisher),
          data: { '@type': 'org:Organization', name: m.publisher },
        })
      : undefined;
    const dists = d.resources.map(distributionItem);
    for (const x of dists) keep('distribution', x.item);
    const base: Json = {
      '@type': 'dcat:Dataset',
      accessLevel: 'public',
      bureauCode: ['009:38'],
      contactPoint: { '@type': 'vcard:Contact', fn: 'Medicaid.gov', hasEmail: 'mailto:medicaid.gov@cms.hhs.gov' },
      description: m.description ?? d.title,
      identifier: d.id,
      issued: m.issued ?? m.modified ?? DEFAULT_MODIFIED,
      modified: m.modified ?? DEFAULT_MODIFIED,
      programCode: ['009:000'],
      title: d.title,
    };
    // Dereferencer::dereferenceProperty drops a referenced property that is empty.
    const referenced = (values: { theme: unknown; keyword: unknown; publisher: unknown; distribution: unknown }) => ({
      ...(theme.length > 0 ? { theme: values.theme } : {}),
      ...(keyword.length > 0 ? { keyword: values.keyword } : {}),
      ...(publisher ? { publisher: values.publisher } : {}),
      ...(dists.length > 0 ? { distribution: values.distribution } : {}),
    });
    const values = {
      theme: theme.map((t) => t.data),
      keyword: keyword.map((k) => k.data),
      publisher: publisher?.data,
      distribution: dists.map((x) => x.plain),
    };
    const refs = { theme, keyword, publisher, distribution: dists.map((x) => x.item) };
    const indexedValues = { ...values, distribution: dists.map((x) => x.item.data) };
    const refKeys = Object.fromEntries(Object.entries(referenced(refs)).map(([k, v]) => [`%Ref:${k}`, v]));
    return {
      id: d.id,
      plain: sortKeys({ ...base, ...referenced(values) }),
      referenced: sortKeys({ ...base, ...referenced(refs) }),
      indexed: { ...sortKeys({ ...base, ...referenced(indexedValues) }), ...refKeys },
      facets: {
        theme: m.theme ?? [],
        keyword: m.keyword ?? [],
        publisher__name: m.publisher ? [m.publisher] : [],
      },
    };
  });
  return { datasets, byId: new Map(datasets.map((d) => [d.id, d])), items };
}

/** DCAT-US documents as DKAN's form builder saves them: properties in alphabetical order, @type first. */
function sortKeys(o: Json): Json {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

export function metastoreOf(store: FixtureStore): Metastore {
  return store.memo('dkan:metastore', build);
}

/** The schema ids the metastore answers (DKAN's default schemas with items). */
export const SCHEMAS = ['dataset', 'distribution', 'keyword', 'theme', 'publisher'] as const;
