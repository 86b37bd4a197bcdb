import type { AreaDefinition } from '../types.js';

export const marketcheckArea: AreaDefinition = {
  name: 'marketcheck',
  letter: 'B',
  title: 'MarketCheck API v2',
  prefix: '/marketcheck',
  upstream: 'https://marketcheck-prod.apigee.net/v2',
  plugin: async () => {},
  catalog: () => ({}),
  forced: { statuses: {}, send: (_request, reply) => reply },
};
