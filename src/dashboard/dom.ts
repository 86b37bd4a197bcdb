// A few DOM helpers: the dashboard is small enough not to need a UI framework.
type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | ((event: Event) => void) | undefined>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') el.addEventListener(name.replace(/^on/, '').toLowerCase(), value);
    else if (name === 'className') el.className = String(value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(typeof child === 'object' ? child : String(child));
  }
  return el;
}

export function replace(parent: Element, ...children: (Child | Child[])[]): void {
  parent.replaceChildren();
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(typeof child === 'object' ? child : String(child));
  }
}

/** Copies text and says so in the live region. */
export async function copy(text: string, announce: (message: string) => void): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
    announce('Copied to the clipboard');
  } catch {
    // Clipboard access needs a secure context or permission; show the text to copy by hand instead.
    window.prompt('Copy this:', text);
  }
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export function curl(
  method: string,
  url: string,
  headers: Record<string, string | string[]> = {},
  body?: string,
): string {
  const parts = ['curl'];
  if (method !== 'GET') parts.push('-X', method);
  for (const [name, value] of Object.entries(headers)) {
    for (const v of Array.isArray(value) ? value : [value]) parts.push('-H', shellQuote(`${name}: ${v}`));
  }
  if (body !== undefined && body !== '') parts.push('--data-binary', shellQuote(body));
  parts.push(shellQuote(url));
  return parts.join(' ');
}
