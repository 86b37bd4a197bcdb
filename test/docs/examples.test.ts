// Every shell and TypeScript example in README.md and docs/ runs here, so none can go stale. Shell blocks run
// in bash against a started mockyard (its URL in place of http://127.0.0.1:4010); TypeScript blocks that name
// a file (`// file: path`) are written into a fresh project that depends on this package, whose Vitest suite
// then runs twice (a second run, like watch mode, meets the state the first one left). A block that cannot
// run here says why in a `<!-- not run: ... -->` line right above it.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/paths.js';
import { startMockyard, type RunningMockyard } from '../../src/index.js';

const run = promisify(execFile);
const root = packageRoot();
const DOCS = ['README.md', ...readdirSync(path.join(root, 'docs')).map((f) => path.join('docs', f))].filter((f) =>
  f.endsWith('.md'),
);

interface Block {
  where: string;
  lang: string;
  code: string;
  notRun: string | null;
}

function blocks(file: string): Block[] {
  const lines = readFileSync(path.join(root, file), 'utf8').split('\n');
  const out: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w+)/.exec(lines[i] ?? '');
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !(lines[i] ?? '').startsWith('```'); i++) body.push(lines[i] ?? '');
    const before = /^<!-- not run: (.+) -->$/.exec(lines[start - 1] ?? '');
    out.push({
      where: `${file}:${start + 1}`,
      lang: open[1] ?? '',
      code: body.join('\n'),
      notRun: before?.[1] ?? null,
    });
  }
  return out;
}

const all = DOCS.flatMap(blocks);
const shell = all.filter((b) => (b.lang === 'sh' || b.lang === 'bash') && !b.notRun);
const typescript = all.filter((b) => b.lang === 'ts' && !b.notRun);
// The first two lines of the README: they start and test this very checkout, which the suite is already doing.
const SELF = /^npm ci && npm (start|test)\b/;

describe('documentation examples', () => {
  it('are all run, or say why not', () => {
    for (const b of all.filter((x) => ['sh', 'bash', 'ts'].includes(x.lang))) {
      if (b.notRun) expect(b.notRun.length, b.where).toBeGreaterThan(10);
      if (b.lang === 'ts' && !b.notRun) expect(b.code, `${b.where} names its file`).toMatch(/^\/\/ file: \S+/);
    }
    expect(shell.length).toBeGreaterThan(10);
    expect(typescript.length).toBeGreaterThanOrEqual(4);
  });

  it('have no placeholders', () => {
    for (const b of all) expect(b.code, b.where).not.toMatch(/<(owner|identifier|token|id|name|file)>/);
  });

  it('link only to files that exist', () => {
    for (const file of DOCS) {
      const text = readFileSync(path.join(root, file), 'utf8');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (!target || /^(https?:|mailto:|#)/.test(target)) continue;
        const resolved = path.join(root, path.dirname(file), target.split('#')[0] ?? '');
        expect(() => readFileSync(resolved), `${file} links to ${target}`).not.toThrow();
      }
    }
  });
});

describe('shell examples', () => {
  let server: RunningMockyard;
  let bin: string;
  let work: string;

  beforeAll(async () => {
    server = await startMockyard({ logLevel: 'silent' });
    work = mkdtempSync(path.join(os.tmpdir(), 'mockyard-docs-'));
    bin = path.join(work, 'bin');
    mkdirSync(bin);
    // `npx mockyard` in a block is the CLI of this checkout.
    writeFileSync(path.join(bin, 'mockyard'), `#!/bin/sh\nexec node ${path.join(root, 'dist/bundle/cli.js')} "$@"\n`, {
      mode: 0o755,
    });
  });

  afterAll(async () => {
    await server?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  for (const b of shell) {
    it(`${b.where} runs`, async () => {
      const host = new URL(server.url).host;
      const code = b.code
        .split('\n')
        .filter((line) => !SELF.test(line))
        .join('\n')
        .replaceAll('127.0.0.1:4010', host)
        .replaceAll('npx mockyard', 'mockyard');
      const result = await run('bash', ['-e', '-o', 'pipefail', '-c', code], {
        cwd: work,
        env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
        timeout: 60_000,
        maxBuffer: 16 * 1024 * 1024,
      }).catch((err: { code?: number; stderr?: string; stdout?: string }) => err);
      expect(
        'code' in result && result.code ? result.code : 0,
        `${b.where}\n${'stderr' in result ? result.stderr : ''}`,
      ).toBe(0);
    });
  }
});

describe('TypeScript examples', () => {
  it('make a Vitest project that passes, twice in a row', { timeout: 300_000 }, async () => {
    const project = mkdtempSync(path.join(os.tmpdir(), 'mockyard-docs-ts-'));
    try {
      const files = new Map<string, string>();
      for (const b of typescript) {
        const name = /^\/\/ file: (\S+)/.exec(b.code)?.[1] ?? '';
        const prior = files.get(name);
        if (prior !== undefined) expect(b.code, `${b.where} says the same as the other ${name}`).toBe(prior);
        files.set(name, b.code);
      }
      for (const [name, code] of files) {
        mkdirSync(path.dirname(path.join(project, name)), { recursive: true });
        writeFileSync(path.join(project, name), code);
      }
      writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'client-under-test', type: 'module' }));
      mkdirSync(path.join(project, 'node_modules'));
      symlinkSync(root, path.join(project, 'node_modules', 'mockyard'));
      symlinkSync(path.join(root, 'node_modules', 'vitest'), path.join(project, 'node_modules', 'vitest'));
      // Its own fixture folder: the examples use another seed than this checkout's database.
      const env = {
        ...process.env,
        NO_COLOR: '1',
        FORCE_COLOR: '0',
        MOCKYARD_DATA_DIR: path.join(project, 'mockyard-data'),
      };
      for (const round of [1, 2]) {
        const result = await run(process.execPath, [path.join(root, 'node_modules/vitest/vitest.mjs'), 'run'], {
          cwd: project,
          env,
          timeout: 240_000,
          maxBuffer: 16 * 1024 * 1024,
        }).catch((err: { code?: number; stdout?: string; stderr?: string }) => err);
        const failed = 'code' in result && result.code;
        expect(failed ? 1 : 0, `round ${round}:\n${result.stdout}\n${result.stderr}`).toBe(0);
        expect(result.stdout).toMatch(/Tests\s+\S*\d+ passed/);
      }
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });
});
