// One download read to the end, in a process of its own pinned to core 1 as wrk is (bench/lib.ts `download`).
// In the bench's own process the reading was the limit: after the DKAN mixes its heap is large, and a
// collection every few chunks held a 1 GiB stream near 0.9 GB/s that a fresh process reads at 2.4 GB/s.
// Prints {"bytes":..., "seconds":...} on stdout.
import http from 'node:http';

const url = process.argv[2];
if (!url) throw new Error('usage: download-client.js <url>');
const fail = (err: Error) => {
  process.stderr.write(`download-client: ${err.message}\n`);
  process.exitCode = 1;
};
const started = process.hrtime.bigint();
http
  .get(url, (res) => {
    let bytes = 0;
    res.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    res.on('error', fail);
    res.on('end', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      process.stdout.write(`${JSON.stringify({ status: res.statusCode, bytes, seconds })}\n`);
    });
  })
  .on('error', fail);
