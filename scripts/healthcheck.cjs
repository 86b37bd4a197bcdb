// Container health probe: GET /__mockyard/health on MOCKYARD_PORT through node:http, which (unlike
// fetch) accepts every port, including the ones on the Fetch standard's blocked list such as 5060.
const http = require('node:http');

const port = Number(process.env.MOCKYARD_PORT || 4010);
const request = http.get({ host: '127.0.0.1', port, path: '/__mockyard/health', timeout: 2500 }, (res) => {
  res.resume();
  process.exit(res.statusCode === 200 ? 0 : 1);
});
request.on('timeout', () => request.destroy(new Error('timeout')));
request.on('error', () => process.exit(1));
