// The built CLI (dist/bundle/cli.js) started as users start it, on a free port.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { packageRoot } from '../../src/paths.js';

export const cliPath = path.join(packageRoot(), 'dist', 'bundle', 'cli.js');

/** Starts the CLI with `--port 0 --log-level warn` and `args`; resolves once it prints its ready line. */
export function startCliProcess(args: readonly string[] = []): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [cliPath, '--port', '0', '--log-level', 'warn', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /ready at (http:\/\/\S+)/.exec(out);
      if (m?.[1]) resolve({ child, url: m[1] });
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
}
