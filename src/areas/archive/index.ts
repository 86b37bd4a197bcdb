import type { AreaDefinition } from '../types.js';

export const archiveArea: AreaDefinition = {
  name: 'archive',
  letter: 'A',
  title: 'Internet Archive',
  prefix: '/archive',
  upstream: 'https://archive.org',
  plugin: async () => {},
  catalog: () => ({}),
  forced: { statuses: {}, send: (_request, reply) => reply },
};
