// The fixture builder as it is on disk now: in a checkout, compiled from fixtures/*.ts on the spot.
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageRoot } from './paths.js';

type BuildModule = typeof import('../fixtures/build.js');

/**
 * The bundle carries the builder as it was when the package was built. In a checkout, where
 * fixtures/build.ts and esbuild are present, watch mode compiles the builder from its sources instead,
 * so an edited builder runs and the fingerprint of those sources is true. A package install has no
 * sources to edit and uses the bundled builder.
 */
export async function loadFreshBuilder(): Promise<BuildModule> {
  const root = packageRoot();
  const entry = path.join(root, 'fixtures', 'build.ts');
  if (existsSync(entry) && existsSync(path.join(root, 'src'))) {
    let esbuild: typeof import('esbuild') | undefined;
    try {
      esbuild = await import('esbuild');
    } catch {
      esbuild = undefined;
    }
    if (esbuild) {
      // Inside the package, so its dependencies resolve from node_modules.
      const dir = path.join(root, 'node_modules', '.cache', 'mockyard');
      mkdirSync(dir, { recursive: true });
      const outfile = path.join(dir, `builder-${process.pid}-${Date.now()}.mjs`);
      await esbuild.build({
        entryPoints: [entry],
        bundle: true,
        platform: 'node',
        format: 'esm',
        target: 'node20',
        outfile,
        packages: 'external',
        logLevel: 'error',
      });
      try {
        return (await import(pathToFileURL(outfile).href)) as BuildModule;
      } finally {
        rmSync(outfile, { force: true });
      }
    }
  }
  return import('../fixtures/build.js');
}
