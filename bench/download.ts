// One download measured from a client process of its own (download-client.ts), pinned to core 1 as wrk is.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { packageRoot } from '../src/paths.js';
import { hasTaskset, rssMiB } from './lib.js';

/**
 * Streams one download in a client process of its own on core 1 (download-client.ts) and returns its bytes,
 * seconds and the server's peak RSS growth while it ran.
 */
export function download(
  url: string,
  serverPid: number | undefined,
): Promise<{ bytes: number; seconds: number; peakRssGrowthMiB: number }> {
  return new Promise((resolve, reject) => {
    const before = rssMiB(serverPid);
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssMiB(serverPid));
    }, 50);
    const script = path.join(packageRoot(), 'dist', 'bench', 'download-client.js');
    const [cmd, argv] = hasTaskset
      ? ['taskset', ['-c', '1', process.execPath, script, url]]
      : [process.execPath, [script, url]];
    const client = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    // A server that stalls mid-body must not hold the bench for ever.
    const limit = setTimeout(() => client.kill('SIGKILL'), DOWNLOAD_LIMIT_MS);
    let out = '';
    let err = '';
    client.stdout.setEncoding('utf8').on('data', (s: string) => {
      out += s;
    });
    client.stderr.setEncoding('utf8').on('data', (s: string) => {
      err += s;
    });
    const fail = (message: string) => reject(new Error(`download client for ${url}: ${message}`));
    client.on('error', (e) => {
      clearInterval(sampler);
      clearTimeout(limit);
      fail(e.message);
    });
    client.on('close', (code, signal) => {
      clearInterval(sampler);
      clearTimeout(limit);
      peak = Math.max(peak, rssMiB(serverPid));
      if (code !== 0) return fail(`exited with ${code ?? signal}: ${err.trim()}`);
      try {
        const { bytes, seconds } = JSON.parse(out) as { bytes: number; seconds: number };
        resolve({ bytes, seconds, peakRssGrowthMiB: peak - before });
      } catch {
        fail(`printed no figures: ${JSON.stringify(out.slice(0, 200))}`);
      }
    });
  });
}

/** The longest a download may take (a 1 GiB one runs for about a second). */
const DOWNLOAD_LIMIT_MS = 120_000;
