// No module-level caches: state that outlives a request belongs to an object the server owns (the answer
// cache on Runtime, a store's memo, a pool), so that swapping the store, a scenario change or a second server
// in the same process starts clean. A module may hold constants (lookup tables filled where they are
// declared) and side tables keyed by a request object (a WeakMap: they go with the request).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/paths.js';

const root = packageRoot();
/** Containers that a module could fill at run time: a cache if declared empty at the top level. */
const CONTAINERS = new Set(['Map', 'Set', 'Array']);
/** A cache however it is made. */
const CACHES = new Set(['LRUCache', 'TTLCache']);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
    .map((e) => path.join(e.parentPath, e.name));
}

/** A function run where it is declared (`(() => { let x; return ... })()`) keeping a `let` of its own alive. */
function closesOverState(init: ts.Expression | undefined): boolean {
  if (init === undefined || !ts.isCallExpression(init)) return false;
  let callee: ts.Expression = init.expression;
  while (ts.isParenthesizedExpression(callee)) callee = callee.expression;
  if (!ts.isArrowFunction(callee) && !ts.isFunctionExpression(callee)) return false;
  const body = callee.body;
  return (
    ts.isBlock(body) &&
    body.statements.some((st) => ts.isVariableStatement(st) && (st.declarationList.flags & ts.NodeFlags.Let) !== 0)
  );
}

/** Top-level `let`s, top-level containers created empty and state kept in a closure run at once, as `file:line name`. */
function moduleState(file: string, text = readFileSync(file, 'utf8')): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    const mutable = (statement.declarationList.flags & ts.NodeFlags.Let) !== 0;
    for (const d of statement.declarationList.declarations) {
      const init = d.initializer;
      const empty =
        init !== undefined &&
        ((ts.isNewExpression(init) &&
          ts.isIdentifier(init.expression) &&
          (CACHES.has(init.expression.text) ||
            (CONTAINERS.has(init.expression.text) && (init.arguments === undefined || init.arguments.length === 0)))) ||
          (ts.isArrayLiteralExpression(init) && init.elements.length === 0));
      if (mutable || empty || closesOverState(init)) {
        const line = source.getLineAndCharacterOfPosition(d.getStart()).line + 1;
        found.push(`${path.relative(root, file)}:${line} ${d.name.getText(source)}`);
      }
    }
  }
  return found;
}

describe('module state', () => {
  it('no module of the server or the fixture builder keeps a cache of its own', () => {
    // The dashboard is the browser's code: its module is the page's state.
    const files = [...sources(path.join(root, 'src')), ...sources(path.join(root, 'fixtures'))].filter(
      (f) => !f.includes(`${path.sep}dashboard${path.sep}`) || f.includes(`${path.sep}platform${path.sep}`),
    );
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap((f) => moduleState(f))).toEqual([]);
  });

  it('names a top-level let, a container declared empty and a let kept in a closure run at once, and leaves constants and side tables alone', () => {
    const text = [
      'let segment: string | null = null;',
      'const cache = new Map<string, number>();',
      'const lru = new LRUCache({ max: 10 });',
      'const seen = new Set();',
      'const list: string[] = [];',
      "const TABLE = new Map([['a', 1]]);",
      "const NAMES = new Set(['x']);",
      'const notes = new WeakMap<object, string>();',
      'function f() { let x = 1; const m = new Map(); return [x, m]; }',
      'const lazy = (() => { let made: number | undefined; return () => (made ??= 1); })();',
      'const once = (() => { const made = 1; return () => made; })();',
    ].join('\n');
    expect(moduleState(path.join(root, 'src', 'x.ts'), text)).toEqual([
      'src/x.ts:1 segment',
      'src/x.ts:2 cache',
      'src/x.ts:3 lru',
      'src/x.ts:4 seen',
      'src/x.ts:5 list',
      'src/x.ts:10 lazy',
    ]);
  });
});
