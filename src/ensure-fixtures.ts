// The fixture database on disk: made when missing or stale, checked when current. Apart from the server so
// that `mockyard fixtures` loads neither Fastify nor the areas.
import { accessSync, constants, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { BuildResult } from '../fixtures/build.js';
import { DB_FILE, fixtureFingerprint, isCurrent } from '../fixtures/fingerprint.js';
import type { Config } from './config.js';
import { fixturesRoot } from './paths.js';

/** A start that cannot go on, in one line a person can act on. */
export class StartError extends Error {}

export type Progress = (message: string) => void;

/** Builds the fixture database when it is missing or stale; on a current one it loads no builder code. */
export interface EnsureOptions {
  /** Leave other generations' files-* folders for a running server to delete (watch mode). */
  keepOtherFiles?: boolean;
  /** Compile the builder from fixtures/*.ts when they are there (a fresh process in watch mode). */
  freshBuilder?: boolean;
}

/**
 * mkdir -p, one level at a time: Node's own `mkdirSync(dir, { recursive: true })` never returns for a path
 * under /proc, where mkdir fails with ENOENT although the parent exists.
 */
function makeDirs(dir: string): void {
  if (existsSync(dir)) return;
  const parent = path.dirname(dir);
  if (parent !== dir) makeDirs(parent);
  mkdirSync(dir);
}

/** The data folder exists (or can be made) and is writable; otherwise one line naming it and the cause. */
function usableDataDir(dir: string): void {
  try {
    makeDirs(path.resolve(dir));
    accessSync(dir, constants.R_OK | constants.W_OK);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const cause =
      e.code === 'EACCES' || e.code === 'EPERM' || e.code === 'EROFS'
        ? 'no permission to write there'
        : e.code === 'ENOENT'
          ? 'it cannot be created there'
          : e.code === 'ENOTDIR'
            ? 'a part of the path is a file'
            : (e.code ?? e.message);
    throw new StartError(`cannot use data directory ${dir}: ${cause} (choose another with --data-dir)`);
  }
}

export async function ensureFixtures(
  config: Config,
  progress: Progress,
  force = false,
  options: EnsureOptions = {},
): Promise<BuildResult> {
  const started = process.hrtime.bigint();
  usableDataDir(config.dataDir);
  const input = { fixturesDir: fixturesRoot(), seed: config.seed, scale: config.scale, dkanCsvDir: config.dkanCsvDir };
  const fingerprint = fixtureFingerprint(input);
  if (!force && isCurrent(config.dataDir, fingerprint)) {
    return {
      built: false,
      dbPath: path.join(config.dataDir, DB_FILE),
      fingerprint,
      seconds: Number(process.hrtime.bigint() - started) / 1e9,
    };
  }
  const { buildFixtures } = options.freshBuilder
    ? await (await import('./fresh-builder.js')).loadFreshBuilder()
    : await import('../fixtures/build.js');
  // Already found stale (or forced): build without hashing the sources a second time.
  return buildFixtures({
    ...input,
    dataDir: config.dataDir,
    fingerprint,
    force: true,
    keepOtherFiles: options.keepOtherFiles === true,
    log: progress,
  });
}
