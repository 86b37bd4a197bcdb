// Streams one item file from disk with @fastify/send: ranges, conditional requests, nginx-style headers.
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import send from '@fastify/send';
import { nginxRanges } from './byte-ranges.js';
import { ArchiveError } from './errors.js';
import type { FileRow } from './queries.js';
import { whenResponseDone } from '../../platform/http/response-done.js';

// nginx's conf/mime.types (the data nodes run nginx/1.24) for the extensions archive.org items carry, plus IA's
// csv, srt, epub, torrent. Not the mime-types package: it disagrees with nginx on xml, js, bmp, ico, m4a, gz, tar.
const MIME: Record<string, string> = {
  html: 'text/html',
  htm: 'text/html',
  css: 'text/css',
  xml: 'text/xml',
  txt: 'text/plain',
  csv: 'text/csv',
  srt: 'text/plain',
  gif: 'image/gif',
  jpeg: 'image/jpeg',
  jpg: 'image/jpeg',
  png: 'image/png',
  svg: 'image/svg+xml',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  webp: 'image/webp',
  bmp: 'image/x-ms-bmp',
  ico: 'image/x-icon',
  js: 'application/javascript',
  json: 'application/json',
  pdf: 'application/pdf',
  ps: 'application/postscript',
  epub: 'application/epub+zip',
  rtf: 'application/rtf',
  zip: 'application/zip',
  gz: 'application/octet-stream',
  tar: 'application/octet-stream',
  '7z': 'application/x-7z-compressed',
  rar: 'application/x-rar-compressed',
  torrent: 'application/x-bittorrent',
  iso: 'application/octet-stream',
  bin: 'application/octet-stream',
  mp3: 'audio/mpeg',
  ogg: 'audio/ogg',
  m4a: 'audio/x-m4a',
  mid: 'audio/midi',
  flac: 'application/octet-stream',
  mp4: 'video/mp4',
  mpeg: 'video/mpeg',
  mpg: 'video/mpeg',
  mov: 'video/quicktime',
  webm: 'video/webm',
  avi: 'video/x-msvideo',
  wmv: 'video/x-ms-wmv',
  flv: 'video/x-flv',
  m4v: 'video/x-m4v',
  ts: 'video/mp2t',
};

export function contentTypeFor(name: string): string {
  const ext = path.extname(name).slice(1).toLowerCase();
  const type = MIME[ext] ?? 'application/octet-stream';
  return type.startsWith('text/') ? `${type}; charset=utf-8` : type;
}

/** A file's name as its URL path spells it: each segment percent-encoded, the slashes kept. */
export const encodeFileName = (name: string): string => name.split('/').map(encodeURIComponent).join('/');

/** nginx's ETag: hex mtime and hex size. */
export function etagFor(file: FileRow): string {
  return `"${file.mtime.toString(16)}-${file.size.toString(16)}"`;
}

const VALIDATOR_HEADERS = ['if-none-match', 'if-match'] as const;

/**
 * The Range to hand to send, from nginx's reading of the client's (byte-ranges.ts): none where nginx ignores
 * it, `bytes=-0` where nginx answers 416 (send answers 416 to it whatever the file's length), else nginx's
 * ranges, spelled as send reads them.
 */
function rangeForSend(range: string, size: number): string | undefined {
  const outcome = nginxRanges(range, size);
  if (outcome.kind === 'ignored') return undefined;
  if (outcome.kind === 'unsatisfiable') return 'bytes=-0';
  return `bytes=${outcome.ranges.map(([start, end]) => `${start}-${end - 1}`).join(',')}`;
}

/**
 * nginx's If-Range (ngx_http_range_header_filter): a value ending in `"` must be the ETag exactly (a weak or
 * listed one is not), any other must be a date exactly the file's Last-Modified; otherwise the Range is
 * ignored, before it is read. send's own check takes a tag inside a list and any later date.
 */
function ifRangeHolds(ifRange: string, file: FileRow, etag: string): boolean {
  if (ifRange.length >= 2 && ifRange.endsWith('"')) return ifRange === etag;
  return Date.parse(ifRange) === file.mtime * 1000;
}

/**
 * send computes its own weak ETag from the file's stat; the fixture files carry the mtime of their
 * record, so both tags name the same version and the client's nginx tag can be swapped for send's.
 */
function headersForSend(request: FastifyRequest, file: FileRow, etag: string) {
  const weak = `W/"${file.size.toString(16)}-${(file.mtime * 1000).toString(16)}"`;
  const headers = { ...request.headers };
  // nginx ignores a request's Cache-Control: `no-cache` with If-None-Match (what fetch() sends on every
  // conditional request) still gets 304 there, where send would answer 200.
  delete headers['cache-control'];
  if (typeof headers.range === 'string') {
    const ifRange = headers['if-range'];
    const holds = typeof ifRange !== 'string' || ifRangeHolds(ifRange, file, etag);
    const range = holds ? rangeForSend(headers.range, file.size) : undefined;
    if (range === undefined) delete headers.range;
    else headers.range = range;
  }
  // Decided above, as nginx decides it.
  delete headers['if-range'];
  for (const name of VALIDATOR_HEADERS) {
    const value = headers[name];
    if (typeof value === 'string') headers[name] = value.split(etag).join(weak);
  }
  return { method: request.method, headers } as unknown as Readable;
}

const SEND_OPTIONS = {
  index: false,
  dotfiles: 'allow',
  cacheControl: false,
  contentType: false,
} as const;

const KiB = 1024;

/**
 * How far each download reads ahead: one budget of bytes shared by the downloads in flight. Each read of a
 * file is a round trip to libuv's thread pool, so a lone download reads 256 KiB at a time (16 KiB chunks held
 * one stream to about 0.3 GB/s on loopback), while downloads at once share the budget down to 16 KiB each
 * (a download holds about twice its chunk: one read ahead, one on the socket). So 1,000 parallel downloads from
 * slow readers hold what 16 KiB each would, plus half a MiB. A download keeps the size it started with.
 */
export class ReadAhead {
  #active = 0;

  constructor(
    /** The whole budget, and so the largest chunk: what a lone download reads at a time. */
    private readonly budget = 256 * KiB,
    private readonly min = 16 * KiB,
  ) {}

  /** The chunk size for a download starting now; `release` when its stream closes (more calls are ignored). */
  take(): { bytes: number; release: () => void } {
    this.#active += 1;
    const share = this.budget / this.#active;
    let bytes = this.min;
    while (bytes * 2 <= share) bytes *= 2;
    let held = true;
    const release = () => {
      if (held) this.#active -= 1;
      held = false;
    };
    return { bytes, release };
  }

  /** Downloads in flight (for tests). */
  get active(): number {
    return this.#active;
  }
}

export async function sendItemFile(
  request: FastifyRequest,
  reply: FastifyReply,
  itemDir: string,
  file: FileRow,
  readAhead: ReadAhead,
): Promise<FastifyReply> {
  // Defence in depth: names come from the item's file list, and must still resolve inside its folder.
  const full = path.resolve(itemDir, file.name);
  if (!full.startsWith(itemDir + path.sep)) throw new ArchiveError(404);
  const encoded = encodeFileName(file.name);
  const etag = etagFor(file);
  const chunk = readAhead.take();
  let result: Awaited<ReturnType<typeof send>>;
  try {
    const options = { ...SEND_OPTIONS, highWaterMark: chunk.bytes, root: itemDir };
    result = await send(headersForSend(request, file, etag), encoded, options);
  } catch (err) {
    chunk.release();
    throw err;
  }
  // Sent, failed or cut off by the client: its share of the budget is free again (a HEAD or 304 answer never
  // reads its stream, so the response's own close counts too).
  result.stream.once('close', chunk.release);
  whenResponseDone(reply.raw, chunk.release);

  if (result.type === 'error') {
    result.stream.destroy();
    const status = result.statusCode;
    if (status === 416) {
      const range = result.headers['Content-Range'] ?? `bytes */${file.size}`;
      throw new ArchiveError(416, undefined, { 'content-range': range });
    }
    if (status === 412) throw new ArchiveError(412);
    if (status >= 500) {
      request.log.error({ err: result.metadata.error, file: file.name }, 'archive file could not be read');
      throw new ArchiveError(503);
    }
    throw new ArchiveError(404);
  }
  const headers: Record<string, string | number> = { ...result.headers, ETag: etag };
  if (result.statusCode !== 304) headers['Content-Type'] = contentTypeFor(file.name);
  return reply.code(result.statusCode).headers(headers).send(result.stream);
}
