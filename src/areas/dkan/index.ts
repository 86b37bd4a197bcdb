import type { AreaDefinition } from '../types.js';

export const dkanArea: AreaDefinition = {
  name: 'dkan',
  letter: 'E',
  title: 'DKAN datastore',
  prefix: '/dkan',
  upstream: 'https://data.medicaid.gov/api/1',
  plugin: async () => {},
  catalog: () => ({}),
  forced: { statuses: {}, send: (_request, reply) => reply },
};
