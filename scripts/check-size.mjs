// Checks the code-size rules: no source file over 400 lines, no function over 80 (node scripts/check-size.mjs).
// Functions are found with TypeScript's own parser: declarations, methods, arrows and function expressions.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const MAX_FILE = 400;
const MAX_FUNCTION = 80;
const roots = process.argv.slice(2).length ? process.argv.slice(2) : ['src', 'fixtures', 'bench', 'scripts'];

function* files(dir) {
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) yield* files(full);
    else if (/\.(?:ts|mts|mjs)$/.test(name) && !name.endsWith('.d.ts')) yield full;
  }
}

const problems = [];
for (const root of roots) {
  for (const file of files(root)) {
    const text = readFileSync(file, 'utf8');
    const lines = text.split('\n').length;
    if (lines > MAX_FILE) problems.push(`${file}: ${lines} lines (at most ${MAX_FILE})`);
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const visit = (node) => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
        const end = source.getLineAndCharacterOfPosition(node.end).line;
        const length = end - start + 1;
        if (length > MAX_FUNCTION) {
          const name = node.name?.getText(source) ?? '(anonymous)';
          problems.push(`${file}:${start + 1}: function ${name} is ${length} lines (at most ${MAX_FUNCTION})`);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
}
for (const p of problems) console.log(p);
console.log(problems.length ? `${problems.length} over the limits` : 'file and function sizes within the limits');
process.exit(problems.length ? 1 : 0);
