// A scenario's archive items as the records the archive loader takes: bytes from content, base64 or size.
import { createCipheriv, createHash } from 'node:crypto';
import { closeSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { REFERENCE_DATE } from '../../fixtures/fingerprint.js';
import type { ArchiveFileRecord, ArchiveItemRecord, Digest } from '../../fixtures/archive/load.js';
import { isSuspiciousName } from '../areas/archive/queries.js';
import { ScenarioError, pointer } from './errors.js';
import { SCENARIO_LIMITS, type ScenarioBody } from './schema.js';

type Body = NonNullable<ScenarioBody['archive']>;

/**
 * Strict base64: Node's decoder skips what it cannot read, so the text is valid when it encodes back to
 * itself. (A regular expression over megabytes of text overflows the regexp engine's stack.)
 */
function decodeBase64(text: string): Buffer | null {
  const data = Buffer.from(text, 'base64');
  return data.toString('base64') === text ? data : null;
}

const PIECE = 1024 * 1024;
const MAX_SEGMENT_BYTES = 255;

/**
 * The deterministic bytes of a file given by `size` (the same as seededBytes(label, size): AES-CTR is a
 * stream), made a piece at a time: a declared size costs CPU and disk, never that much memory.
 */
function seededPieces(label: string, size: number): () => Generator<Buffer> {
  const key = createHash('sha256').update(label).digest().subarray(0, 16);
  return function* () {
    const cipher = createCipheriv('aes-128-ctr', key, Buffer.alloc(16));
    const zeros = Buffer.alloc(Math.min(PIECE, size));
    for (let done = 0; done < size; done += PIECE) yield cipher.update(zeros.subarray(0, Math.min(PIECE, size - done)));
  };
}

function sizedFile(label: string, size: number): NonNullable<ArchiveFileRecord['large']> {
  const pieces = seededPieces(label, size);
  const md5 = createHash('md5');
  const sha1 = createHash('sha1');
  let crc = 0;
  for (const piece of pieces()) {
    md5.update(piece);
    sha1.update(piece);
    crc = crc32(piece, crc);
  }
  const digest: Digest = {
    size,
    md5: md5.digest('hex'),
    crc32: (crc >>> 0).toString(16).padStart(8, '0'),
    sha1: sha1.digest('hex'),
  };
  const write = (fullPath: string) => {
    const fd = openSync(fullPath, 'w');
    try {
      for (const piece of pieces()) writeSync(fd, piece);
    } finally {
      closeSync(fd);
    }
  };
  return { digest, write };
}

/** `a` and `a/b` cannot both be files: on disk (and on archive.org's data nodes) `a` is then a folder. */
function folderClash(name: string, names: ReadonlySet<string>, folders: Set<string>): string | null {
  if (folders.has(name)) return name;
  for (let i = name.indexOf('/'); i > 0; i = name.indexOf('/', i + 1)) {
    const folder = name.slice(0, i);
    if (names.has(folder)) return folder;
    folders.add(folder);
  }
  return null;
}
const REF_SECONDS = Math.floor(REFERENCE_DATE.getTime() / 1000);
/** A file's mtime when the body gives none: the day before the fixtures' reference date. */
const DEFAULT_MTIME = REF_SECONDS - 86_400;

// archive.org's format names for the common extensions; anything else is "Unknown", as IA labels it.
const FORMATS: Record<string, string> = {
  pdf: 'Text PDF',
  txt: 'Text',
  json: 'JSON',
  csv: 'Comma-Separated Values',
  xml: 'Metadata',
  jpg: 'JPEG',
  jpeg: 'JPEG',
  png: 'PNG',
  gif: 'Animated GIF',
  mp3: 'VBR MP3',
  mp4: 'MPEG4',
  zip: 'ZIP',
  torrent: 'Archive BitTorrent',
  epub: 'EPUB',
  iso: 'ISO Image',
  ogg: 'Ogg Vorbis',
  flac: 'Flac',
  webm: 'WebM',
  gz: 'GZIP',
  tar: 'TAR',
};

/** The bytes a file gives as content or base64; undefined for a file given by size (made in pieces later). */
function givenBytes(f: { content?: string; base64?: string }, fileAt: string): Buffer | undefined {
  if (f.content !== undefined) return Buffer.from(f.content, 'utf8');
  if (f.base64 === undefined) return undefined;
  const decoded = decodeBase64(f.base64.replace(/\s+/g, ''));
  if (decoded === null) throw new ScenarioError(pointer(fileAt, 'base64'), 'not valid base64');
  return decoded;
}

export function archiveRecords(body: Body): { records: ArchiveItemRecord[]; counts: Record<string, number> } {
  const at = '/archive';
  const seen = new Set<string>();
  let totalBytes = 0;
  let fileCount = 0;
  const records = (body.items ?? []).map((item, i): ArchiveItemRecord => {
    const itemAt = pointer(at, 'items', i);
    const id = item.identifier;
    if (seen.has(id)) throw new ScenarioError(pointer(itemAt, 'identifier'), `item "${id}" is listed twice`);
    seen.add(id);
    if (item.dark && item.unavailable)
      throw new ScenarioError(pointer(itemAt, 'unavailable'), 'an item is either dark or unavailable, not both');
    const names = new Set<string>();
    const folders = new Set<string>();
    const files = (item.files ?? []).map((f, j): ArchiveFileRecord => {
      const fileAt = pointer(itemAt, 'files', j);
      if (isSuspiciousName(f.name))
        throw new ScenarioError(
          pointer(fileAt, 'name'),
          `"${f.name}" is not a file name inside the item (no .., empty segments, leading /, backslash or NUL)`,
        );
      if (names.has(f.name)) throw new ScenarioError(pointer(fileAt, 'name'), `file "${f.name}" is listed twice`);
      // Files live on disk under their names; no file system takes a name (a segment) over 255 bytes.
      if (f.name.split('/').some((segment) => Buffer.byteLength(segment) > MAX_SEGMENT_BYTES))
        throw new ScenarioError(
          pointer(fileAt, 'name'),
          `each part of a file name (between slashes) may have at most ${MAX_SEGMENT_BYTES} bytes`,
        );
      const clash = folderClash(f.name, names, folders);
      if (clash !== null)
        throw new ScenarioError(
          pointer(fileAt, 'name'),
          `"${clash}" cannot be both a file and the folder of "${clash === f.name ? 'another file' : f.name}"`,
        );
      names.add(f.name);
      const given = [f.content, f.base64, f.size].filter((v) => v !== undefined).length;
      if (given !== 1) throw new ScenarioError(fileAt, 'give exactly one of content, base64 or size');
      const data = givenBytes(f, fileAt);
      const size = data ? data.length : f.size!;
      if (size > SCENARIO_LIMITS.fileBytes)
        throw new ScenarioError(fileAt, `a file may have at most ${SCENARIO_LIMITS.fileBytes} bytes`, 413);
      totalBytes += size;
      if (totalBytes > SCENARIO_LIMITS.archiveBytes)
        throw new ScenarioError(
          fileAt,
          `the archive files of one scenario may have at most ${SCENARIO_LIMITS.archiveBytes} bytes`,
          413,
        );
      const ext = path.extname(f.name).slice(1).toLowerCase();
      return {
        name: f.name,
        source: f.source ?? 'original',
        format: f.format ?? FORMATS[ext] ?? 'Unknown',
        mtime: f.mtime ?? DEFAULT_MTIME,
        // Hashed only once this file is within the limits: a refused size costs nothing.
        ...(data ? { data } : { large: sizedFile(`scenario:${id}/${f.name}`, size) }),
      };
    });
    fileCount += files.length;
    // Data node, host names and uniq follow from the identifier, so they stay the same for the same body.
    const h = createHash('sha256').update(`scenario-item:${id}`).digest();
    const host = 10_000 + (h.readUInt32BE(4) % 90_000);
    const metadata = { identifier: id, mediatype: 'data', ...(item.metadata ?? {}) } as Record<string, unknown>;
    metadata.identifier = id;
    return {
      identifier: id,
      status: item.dark ? 'dark' : item.unavailable ? 'unavailable' : 'ok',
      mediatype: String(metadata.mediatype),
      node: 1 + (h.readUInt32BE(0) % 35),
      d1: `ia6${host}.us.archive.org`,
      d2: `ia8${host}.us.archive.org`,
      created: REF_SECONDS,
      itemLastUpdated: files.reduce((m, f) => Math.max(m, f.mtime), 0) || DEFAULT_MTIME,
      uniq: 100_000_000 + (h.readUInt32BE(8) % 2_000_000_000),
      metadata,
      files,
    };
  });
  return { records, counts: { items: records.length, files: fileCount } };
}
