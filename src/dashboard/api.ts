// The dashboard's only way to the server: the same admin API a test or curl uses, with the same token.
export interface AreaInfo {
  name: string;
  letter: string;
  title: string;
  prefix: string;
}

/** A request as the live stream sends it: no headers, no bodies (GET /__mockyard/requests/{id} has them). */
export interface JournalSummary {
  id: number;
  method: string;
  area: string | null;
  operationId: string | null;
  path: string;
  query: Record<string, string | string[]>;
  status: number | null;
  durationMs: number;
  timestamp: string;
  fault: string | null;
  forced: boolean;
  scenario: string | null;
  /** The WireMock-format stub mapping that answered, or null. */
  stub: { id: string; name: string | null } | null;
}

/** One journal entry, masked as the journal masks it. */
export interface JournalEntry extends JournalSummary {
  headers: Record<string, string | string[]>;
  requestBody: string | null;
  responseHeaders: Record<string, string | string[]>;
  responseBody: string | null;
  [more: string]: unknown;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const TOKEN_KEY = 'mockyard-admin-token';

/** mockyard's `{message}`, or WireMock's `{errors: [{title, detail, source: {pointer}}]}` (/__admin). */
function errorText(status: number, parsed: unknown, text: string): string {
  if (!parsed || typeof parsed !== 'object') return `${status} ${text}`;
  if ('message' in parsed) return String(parsed.message);
  const first =
    'errors' in parsed && Array.isArray(parsed.errors) ? (parsed.errors[0] as Record<string, unknown>) : null;
  if (!first) return `${status} ${text}`;
  const pointer = (first.source as { pointer?: string } | undefined)?.pointer;
  return [first.title, pointer ? `at ${pointer}` : '', first.detail].filter(Boolean).join(': ');
}

export class Api {
  token: string | null = sessionStorage.getItem(TOKEN_KEY);
  onUnauthorized: () => void = () => undefined;

  setToken(token: string | null): void {
    this.token = token;
    if (token) sessionStorage.setItem(TOKEN_KEY, token);
    else sessionStorage.removeItem(TOKEN_KEY);
  }

  headers(extra: Record<string, string> = {}): Record<string, string> {
    // The header tells the browser policy that a script, not a cross-site form, sent this.
    const h: Record<string, string> = { 'x-mockyard-admin': '1', ...extra };
    if (this.token) h.authorization = `Bearer ${this.token}`;
    return h;
  }

  async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const init: RequestInit = {
      method,
      headers: this.headers(body === undefined ? {} : { 'content-type': 'application/json' }),
    };
    if (body !== undefined) init.body = typeof body === 'string' ? body : JSON.stringify(body);
    const res = await fetch(path, init);
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // Not JSON: keep the text.
    }
    if (res.status === 401) this.onUnauthorized();
    if (!res.ok) throw new ApiError(res.status, errorText(res.status, parsed, text));
    return parsed as T;
  }

  /**
   * Reads the server-sent events of /__mockyard/live through fetch (EventSource cannot send the admin
   * token). Calls `onEvent` per event until `signal` aborts; resolves when the stream ends.
   */
  async stream(signal: AbortSignal, onEvent: (event: string, data: unknown) => void): Promise<void> {
    const res = await fetch('/__mockyard/live', { headers: this.headers(), signal });
    if (res.status === 401) this.onUnauthorized();
    if (!res.ok || !res.body) throw new ApiError(res.status, `live stream answered ${res.status}`);
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      let cut = buffer.indexOf('\n\n');
      while (cut >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        let event = 'message';
        const data: string[] = [];
        for (const line of block.split('\n')) {
          if (line.startsWith('event: ')) event = line.slice(7);
          else if (line.startsWith('data: ')) data.push(line.slice(6));
        }
        if (data.length > 0) onEvent(event, JSON.parse(data.join('\n')));
        cut = buffer.indexOf('\n\n');
      }
    }
  }
}
