// WireMock's directory layout: DIR/mappings/**/*.json (one mapping, or {"mappings": [...]}) and DIR/__files/.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { MappingError, isObject } from './errors.js';
import { MAPPING_LIMITS } from './mapping.js';

export interface MappingFile {
  file: string;
  mappings: unknown[];
}

function jsonFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) jsonFiles(full, out);
    else if (entry.isFile() && entry.name.toLowerCase().endsWith('.json')) out.push(full);
  }
  return out.sort();
}

/** Reads every mapping file under DIR/mappings; a file that is not JSON is a MappingError naming it. */
export function readMappingDir(root: string): MappingFile[] {
  const dir = path.join(root, 'mappings');
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw new MappingError(dir, 'is not a directory: --mappings DIR needs DIR/mappings (and optionally DIR/__files)');
  return jsonFiles(dir).map((file) => {
    const rel = path.relative(root, file);
    if (statSync(file).size > MAPPING_LIMITS.mappingBytes * 16)
      throw new MappingError(rel, `is larger than ${MAPPING_LIMITS.mappingBytes * 16} bytes`);
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(file, 'utf8'));
    } catch (err) {
      throw new MappingError(rel, `is not valid JSON (${(err as Error).message})`);
    }
    const mappings = isObject(json) && Array.isArray(json.mappings) ? json.mappings : [json];
    return { file: rel, mappings };
  });
}

export const filesRootOf = (root: string): string => path.join(root, '__files');
