import type { AreaDefinition } from '../types.js';

export const appcenterArea: AreaDefinition = {
  name: 'appcenter',
  letter: 'C',
  title: 'App Center API v0.1',
  prefix: '/appcenter',
  upstream: 'https://api.appcenter.ms',
  plugin: async () => {},
  catalog: () => ({}),
  forced: { statuses: {}, send: (_request, reply) => reply },
};
