// What Swagger UI needs from the document so that a person reads every description and "Try it out"
// works with what the page fills in.
type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Swagger UI renders descriptions as Markdown and drops anything shaped like an HTML tag, so
 * "<field> <asc|desc>" would lose its placeholders. Outside code spans, `<` and `>` become entities.
 */
export function escapePlaceholders(text: string): string {
  return text
    .split(/(`[^`]*`)/)
    .map((part, i) => (i % 2 === 1 ? part : part.replace(/<([^<>\s][^<>]*)>/g, '&lt;$1&gt;')))
    .join('');
}

/**
 * An optional array-of-objects parameter (DKAN's sorts, resources, joins) gets one item prefilled from its
 * schema ("string" text the service refuses); an empty example makes the page send none.
 */
function emptyArrayExample(parameter: Json): void {
  const schema = parameter.schema;
  if (parameter.required || parameter.example !== undefined || !isObject(schema)) return;
  if (schema.type === 'array' && isObject(schema.items) && schema.items.type === 'object') parameter.example = [];
}

function walk(node: unknown, visit: (obj: Json) => void): void {
  if (Array.isArray(node)) for (const item of node) walk(item, visit);
  else if (isObject(node)) {
    visit(node);
    for (const value of Object.values(node)) walk(value, visit);
  }
}

/** Escapes every description's placeholders and keeps array-of-object parameters empty until filled. */
export function polishForSwaggerUi(doc: Json): void {
  walk(doc, (obj) => {
    if (typeof obj.description === 'string') obj.description = escapePlaceholders(obj.description);
    if (typeof obj.in === 'string' && typeof obj.name === 'string') emptyArrayExample(obj);
  });
}
