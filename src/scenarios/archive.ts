// A scenario's archive items as the records the archive loader takes: bytes from content, base64 or size.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { REFERENCE_DATE } from '../../fixtures/fingerprint.js';
import { seededBytes } from '../../fixtures/archive/formats.js';
import type { ArchiveFileRecord, ArchiveItemRecord } from '../../fixtures/archive/load.js';
import { isSuspiciousName } from '../areas/archive/queries.js';
import { ScenarioError, pointer } from './errors.js';
import { SCENARIO_LIMITS, type ScenarioBody } from './schema.js';

type Body = NonNullable<ScenarioBody['archive']>;

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
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
    const files = (item.files ?? []).map((f, j): ArchiveFileRecord => {
      const fileAt = pointer(itemAt, 'files', j);
      if (isSuspiciousName(f.name))
        throw new ScenarioError(
          pointer(fileAt, 'name'),
          `"${f.name}" is not a file name inside the item (no .., empty segments, leading /, backslash or NUL)`,
        );
      if (names.has(f.name)) throw new ScenarioError(pointer(fileAt, 'name'), `file "${f.name}" is listed twice`);
      names.add(f.name);
      const given = [f.content, f.base64, f.size].filter((v) => v !== undefined).length;
      if (given !== 1) throw new ScenarioError(fileAt, 'give exactly one of content, base64 or size');
      let data: Buffer;
      if (f.content !== undefined) data = Buffer.from(f.content, 'utf8');
      else if (f.base64 !== undefined) {
        const text = f.base64.replace(/\s+/g, '');
        if (!BASE64.test(text)) throw new ScenarioError(pointer(fileAt, 'base64'), 'not valid base64');
        data = Buffer.from(text, 'base64');
      } else data = seededBytes(`scenario:${id}/${f.name}`, f.size!);
      if (data.length > SCENARIO_LIMITS.fileBytes)
        throw new ScenarioError(fileAt, `a file may have at most ${SCENARIO_LIMITS.fileBytes} bytes`, 413);
      totalBytes += data.length;
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
        data,
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
