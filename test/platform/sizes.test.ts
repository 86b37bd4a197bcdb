// The code-size rule (`npm run sizes`): no file of mockyard's code (src, fixtures, bench, scripts) over 400
// lines, no function over 80.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/paths.js';

const root = packageRoot();

function checkSize(...roots: string[]): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, [path.join(root, 'scripts/check-size.mjs'), ...roots], {
    cwd: root,
    encoding: 'utf8',
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('code sizes', () => {
  it('keeps every file in src, fixtures, bench and scripts within 400 lines and every function within 80', () => {
    const { status, output } = checkSize('src', 'fixtures', 'bench', 'scripts');
    // The checker's own lines name each breach: show them when the rule is broken.
    expect(output).toContain('file and function sizes within the limits');
    expect(status, output).toBe(0);
  });

  it('fails on a file over 400 lines and on a function over 80', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mockyard-sizes-'));
    try {
      const body = Array.from({ length: 80 }, (_, i) => `  const v${i} = ${i};`).join('\n');
      writeFileSync(path.join(dir, 'long-function.ts'), `export function tooLong(): void {\n${body}\n}\n`);
      writeFileSync(path.join(dir, 'long-file.ts'), 'export const x = 1;\n'.repeat(401));
      const { status, output } = checkSize(dir);
      expect(status).toBe(1);
      expect(output).toMatch(/long-function\.ts:1: function tooLong is 82 lines \(at most 80\)/);
      expect(output).toMatch(/long-file\.ts: 402 lines \(at most 400\)/);
      expect(output).toContain('2 over the limits');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
