// Every way mockyard is launched gives Node the same flags (src/cli.ts says why), and the bench measures the
// server with them.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LAUNCH_ENV, LAUNCH_FLAGS } from '../../bench/lib.js';

const root = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

describe("the launchers' Node flags", () => {
  it('are the same for npm start, the image, the command and the bench', () => {
    const flags = LAUNCH_FLAGS.join(' ');
    expect(flags).toBe('--no-allocation-site-pretenuring --no-memory-reducer --single-threaded-gc');
    const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
    expect(pkg.scripts.start).toBe(`node ${flags} scripts/start.mjs`);
    const entrypoint = /^ENTRYPOINT (.+)$/m.exec(read('Dockerfile'))?.[1];
    expect(JSON.parse(entrypoint ?? 'null')).toEqual(['node', ...LAUNCH_FLAGS, 'dist/bundle/cli.js']);
    const env = Object.entries(LAUNCH_ENV).map(([k, v]) => `${k}=${v}`);
    const shebang = `#!/usr/bin/env -S ${env.join(' ')} node ${flags}`;
    expect(read('src/cli.ts').split('\n')[0]).toBe(shebang);
    expect(read('dist/bundle/cli.js').split('\n')[0]).toBe(shebang);
  });

  it('give the command, the image and the bench the same malloc settings (npm start runs in any shell)', () => {
    expect(LAUNCH_ENV).toEqual({
      MALLOC_ARENA_MAX: '2',
      MALLOC_MMAP_THRESHOLD_: '1048576',
      MALLOC_TRIM_THRESHOLD_: '1048576',
    });
    const env = Object.entries(LAUNCH_ENV).map(([k, v]) => `${k}=${v}`);
    expect(read('dist/bundle/cli.js').split('\n')[0]).toContain(` -S ${env.join(' ')} node `);
    for (const e of env) expect(read('Dockerfile')).toMatch(new RegExp(`^\\s+${e}\\b`, 'm'));
  });

  it('start the command as its #! line says (Node refuses a flag it does not know)', () => {
    const [, ...argv] = read('dist/bundle/cli.js').split('\n')[0]!.replace('#!', '').split(' ');
    // env -S NAME=value node --flag: run with this very node, the variables and flags as the line gives them.
    const flags = argv.slice(argv.indexOf('node') + 1);
    const vars = Object.fromEntries(argv.filter((a) => /^[A-Z_]+=/.test(a)).map((a) => a.split('=', 2)));
    expect(vars).toEqual(LAUNCH_ENV);
    const out = spawnSync(process.execPath, [...flags, path.join(root, 'dist/bundle/cli.js'), '--version'], {
      encoding: 'utf8',
      env: { ...process.env, ...vars },
    });
    expect(out.stderr).toBe('');
    expect(out.status).toBe(0);
    expect(out.stdout).toMatch(/^\d+\.\d+\.\d+/);
  });
});
