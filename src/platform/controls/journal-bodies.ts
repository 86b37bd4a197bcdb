// Request and response bodies in the journal: captured by reference (or cut to the limit) on the request
// path, masked and turned into text only when someone reads the journal.
import { MASK, type TokenMask, hideToken, isSecretName } from './secrets.js';

const TEXT_TYPE = /^(?:text\/|application\/(?:[\w.+-]+\+)?(?:json|xml|x-www-form-urlencoded|javascript)\b)/i;

/** A body as kept: the first `limit + 1` bytes at most, so a reader can tell that it was cut. */
export interface CapturedBody {
  bytes: Buffer | string | unknown;
  /** The whole body's size in bytes, when known. */
  size: number | null;
  contentType: string | undefined;
}

/** A text of its own: V8 makes a long slice a view of its parent, which it then keeps alive whole. */
const ownText = (slice: string) => Buffer.from(slice).toString('utf8');

/**
 * Keeps at most limit + 1 bytes of a Buffer payload (a string's first limit * 4 characters), a parsed body as
 * its object; nothing of a stream. A longer payload's first bytes are copied, unless `view` (an answer's body,
 * which the journal's slot copies, cut, when the request ends: controls/journal-ring.ts).
 */
export function capture(
  payload: unknown,
  contentType: string | undefined,
  limit: number,
  view = false,
): CapturedBody | null {
  if (limit <= 0 || payload === undefined || payload === null) return null;
  if (typeof payload === 'string') {
    return {
      bytes: view || payload.length <= limit * 4 ? payload : ownText(payload.slice(0, limit * 4)),
      size: Buffer.byteLength(payload),
      contentType,
    };
  }
  if (Buffer.isBuffer(payload)) {
    return {
      bytes:
        payload.length <= limit
          ? payload
          : view
            ? payload.subarray(0, limit + 1)
            : Buffer.from(payload.subarray(0, limit + 1)),
      size: payload.length,
      contentType,
    };
  }
  // A parsed body without the text it was sent as (a JSON body's text is what the journal keeps:
  // controls.ts): masked and cut to text now, as its objects take many times its bytes (a 1 MiB body about
  // 23 MB, and a journal of them ran the server out of memory).
  if (typeof payload === 'object' && !(Symbol.asyncIterator in payload)) {
    const text = JSON.stringify(maskJson(payload)) ?? '';
    return {
      bytes: text.length <= limit * 4 ? text : ownText(text.slice(0, limit * 4)),
      size: Buffer.byteLength(text),
      contentType,
    };
  }
  // A stream (a download): nothing kept and no size known, which a reader sees as no body (bodyText).
  return null;
}

function maskJson(value: unknown, depth = 0): unknown {
  if (depth > 64 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => maskJson(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = isSecretName(k) ? MASK : maskJson(v, depth + 1);
  return out;
}

function maskForm(text: string): string {
  return text
    .split('&')
    .map((part) => {
      const eq = part.indexOf('=');
      if (eq < 0) return part;
      let name = part.slice(0, eq);
      try {
        name = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {
        // Shown as sent.
      }
      return isSecretName(name) ? `${part.slice(0, eq)}=${MASK}` : part;
    })
    .join('&');
}

/** Where the string starting at `at` (its opening quote, `"` or `'`) ends: past its closing quote, or the text's end. */
function stringEnd(text: string, at: number): number {
  const quote = text.charCodeAt(at);
  for (let i = at + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 92 /* \ */) i++;
    else if (c === quote) return i + 1;
  }
  return text.length;
}

/** Where the value starting at `at` ends: a string or a bracketed value whole (or to the text's end). */
function valueEnd(text: string, at: number): number {
  const c = text[at];
  if (c === '"' || c === "'") return stringEnd(text, at);
  if (c === '{' || c === '[') {
    let depth = 0;
    for (let i = at; i < text.length; i++) {
      const d = text[i];
      if (d === '"' || d === "'") i = stringEnd(text, i) - 1;
      else if (d === '{' || d === '[') depth++;
      else if ((d === '}' || d === ']') && --depth === 0) return i + 1;
    }
    return text.length;
  }
  const stop = /[,}\]\s]/g;
  stop.lastIndex = at;
  return stop.exec(text)?.index ?? text.length;
}

/** A key as JSON reads it (escapes decoded), from its quoted text, which may be cut short. */
function keyOf(quoted: string): string {
  if (quoted.startsWith('"'))
    for (const candidate of [quoted, `${quoted}"`]) {
      try {
        return JSON.parse(candidate) as string;
      } catch {
        // Cut inside an escape: the next candidate, or the raw text.
      }
    }
  return quoted.slice(1, quoted.length > 1 && quoted.endsWith(quoted[0]!) ? -1 : undefined);
}

const WHITESPACE = /\s/;
const skipSpace = (text: string, at: number): number => {
  let i = at;
  while (i < text.length && WHITESPACE.test(text[i]!)) i++;
  return i;
};

/** A bare word (an unquoted key, as JavaScript and JSON5 write them, or true, null, a number). */
const WORD = /[\w$-]+/y;

/**
 * A JSON body's text with the value of every secret key masked, as maskJson masks a parsed body, and every
 * other byte as the client sent it: one pass, in which a string (or a bare word) followed by `:` is a key,
 * read as JSON reads it, and a masked value is passed whole (an object or a list to its closing bracket, or
 * the text's end). It reads what JSON.parse cannot: a body cut at the journal's limit, one nested past any
 * depth, with a key given twice, or not JSON at all (single quotes, unquoted keys, a comma missing).
 */
function maskJsonText(text: string): string {
  let out = '';
  let copied = 0;
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    let end: number;
    if (c === '"' || c === "'") end = stringEnd(text, i);
    else {
      WORD.lastIndex = i;
      end = WORD.test(text) ? WORD.lastIndex : -1;
    }
    if (end < 0) {
      i++;
      continue;
    }
    const colon = skipSpace(text, end);
    const quoted = c === '"' || c === "'";
    if (text[colon] === ':' && isSecretName(quoted ? keyOf(text.slice(i, end)) : text.slice(i, end))) {
      const value = skipSpace(text, colon + 1);
      out += `${text.slice(copied, value)}"${MASK}"`;
      copied = valueEnd(text, value);
      i = copied;
      continue;
    }
    i = end;
  }
  return out + text.slice(copied);
}

/** A body's text with its secrets masked, by its content type: JSON keys, form fields, the admin token anywhere. */
export function maskedText(text: string, contentType: string, adminToken: TokenMask | null): string {
  let out = text;
  if (/json/i.test(contentType)) out = maskJsonText(text);
  else if (/x-www-form-urlencoded/i.test(contentType)) out = maskForm(text);
  return hideToken(out, adminToken);
}

/**
 * Request bytes as a reader of the journal sees them (WireMock's `body`): text types masked as
 * `maskedText` does, anything else as it came.
 */
export function maskedBytes(bytes: Buffer, contentType: string | undefined, adminToken: TokenMask | null): Buffer {
  const type = contentType ?? '';
  if (type && !TEXT_TYPE.test(type)) return bytes;
  return Buffer.from(maskedText(bytes.toString('utf8'), type, adminToken));
}

/** The body as a reader sees it: text, secrets masked, cut at `limit` bytes with a marker; null for none. */
export function bodyText(
  body: CapturedBody | null | undefined,
  limit: number,
  adminToken: TokenMask | null,
): string | null {
  if (!body || body.bytes === null || body.bytes === undefined) {
    return body?.size ? `[${body.size} bytes, not kept]` : null;
  }
  const type = body.contentType ?? '';
  let text: string;
  if (typeof body.bytes === 'string') text = body.bytes;
  else if (Buffer.isBuffer(body.bytes)) {
    if (type && !TEXT_TYPE.test(type)) return `[${body.size ?? body.bytes.length} bytes of ${type.split(';')[0]}]`;
    text = body.bytes.toString('utf8');
  } else text = JSON.stringify(maskJson(body.bytes)) ?? '';
  text =
    typeof body.bytes === 'object' && !Buffer.isBuffer(body.bytes)
      ? hideToken(text, adminToken)
      : maskedText(text, type, adminToken);
  const size = body.size ?? Buffer.byteLength(text);
  const buf = Buffer.from(text);
  if (buf.length <= limit && size <= limit) return text;
  return `${buf.subarray(0, limit).toString('utf8')}…[cut at ${limit} of ${size} bytes]`;
}

/** Header values as text, as readers show them: JSON would turn a Date into another text, NaN into null, and throw on a BigInt. */
export function stringHeaders(headers: Record<string, unknown> | undefined): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value === undefined) continue;
    out[name] = Array.isArray(value) ? value.map(String) : String(value);
  }
  return out;
}
