// Watch-mode rebuilds in a child process: the server's event loop keeps answering, and the builder is the code on disk now.
import { spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../../config.js';
import { packageRoot } from '../../paths.js';
import { lowerPriority } from '../worker-script.js';

export interface ChildBuildResult {
  built: boolean;
  fingerprint: string;
}

/** The `mockyard` command of this package (the bundle; tests build it before they run). */
export const cliPath = (): string => path.join(packageRoot(), 'dist', 'bundle', 'cli.js');

/**
 * Runs `mockyard fixtures --keep-files` in a fresh Node process. A fresh process imports the builder
 * modules as they are on disk now (in a checkout, from fixtures/*.ts themselves, see
 * `loadFreshBuilder`), so the fingerprint it stamps describes the code that ran. Old files-*
 * folders are kept: the server deletes each when no request uses it any more.
 */
export function rebuildInChild(config: Config, log: (line: string) => void = () => {}): Promise<ChildBuildResult> {
  const args = [
    cliPath(),
    'fixtures',
    '--keep-files',
    '--fresh-builder',
    '--data-dir',
    config.dataDir,
    '--seed',
    String(config.seed),
    '--scale',
    String(config.scale),
  ];
  if (config.dkanCsvDir) args.push('--dkan-csv-dir', config.dkanCsvDir);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    lowerPriority(child);
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      err += c;
      for (const line of c.split('\n')) if (line.trim()) log(line);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const m = /\(fingerprint ([0-9a-f]+)\)/.exec(out);
      if (code !== 0 || !m)
        return reject(
          new Error(`fixture build failed (exit ${code}): ${err.trim().split('\n').slice(-5).join(' | ')}`),
        );
      resolve({ built: out.startsWith('built '), fingerprint: m[1]! });
    });
  });
}

/** Deletes a retired generation's files when it is not the folder the new generation uses. */
export function filesCleanup(oldDir: string, newDir: string): () => void {
  return () => {
    // Off the event loop: a large generation has many files.
    if (path.resolve(oldDir) !== path.resolve(newDir))
      void rm(oldDir, { recursive: true, force: true }).catch(() => undefined);
  };
}
