// node:http for code that needs its values, required rather than imported. An ESM import of node:http
// makes Node build the module's ESM facade, which reads every export, and the WebSocket, CloseEvent and
// MessageEvent getters among them load undici (fetch, HTTP/2, TLS): tens of milliseconds of CPU at every
// start, for nothing mockyard uses. `require` reads only the exports that are used.
import { createRequire } from 'node:module';

export const http = createRequire(import.meta.url)('node:http') as typeof import('node:http');
export const { STATUS_CODES } = http;
