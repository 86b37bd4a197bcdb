// How many values a parsed JSON document holds and how deep it nests, counted once per document: what a
// JSONPath's work is estimated by (json-path-work.ts) and what tells lists of different depths apart
// (json-equal.ts).

export interface Shape {
  values: number;
  depth: number;
}

/** Values (containers included) and deepest nesting of parsed documents, counted once per document. */
const shapes = new WeakMap<object, Shape>();

export function shapeOf(doc: unknown): Shape {
  if (typeof doc !== 'object' || doc === null) return { values: 1, depth: 1 };
  const known = shapes.get(doc);
  if (known) return known;
  let values = 0;
  let depth = 0;
  // A loop, not recursion: a document may nest deeper than the stack.
  const stack: [unknown, number][] = [[doc, 1]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    values++;
    if (d > depth) depth = d;
    if (typeof v === 'object' && v !== null)
      for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, d + 1]);
  }
  const shape = { values, depth };
  shapes.set(doc, shape);
  return shape;
}
