import type { AreaDefinition } from '../types.js';

export const agcoArea: AreaDefinition = {
  name: 'agco',
  letter: 'D',
  title: 'AGCO ATS API',
  prefix: '/agco',
  upstream: 'https://secure.agco-ats.com',
  plugin: async () => {},
  catalog: () => ({}),
  forced: { statuses: {}, send: (_request, reply) => reply },
};
