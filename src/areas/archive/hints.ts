// mockyard-hint texts for the archive's 403 and 404 pages.
import type { FastifyRequest } from 'fastify';

export function archiveHint(request: FastifyRequest, status: number): string | undefined {
  const path = request.url.split('?')[0] ?? '';
  if (status === 403)
    return 'This item is dark (is_dark: true), so every download is refused, as on archive.org; mockyard-dark-item is dark on purpose.';
  if (status !== 404) return undefined;
  if (/\/(download|metadata)\//.test(path) || /\/\d+\/items\//.test(path)) {
    return "No such item or file name (names must match the item's file list exactly); identifiers and file names are listed at /__mockyard/fixtures under archive.items.";
  }
  return 'The archive area serves /metadata/{identifier}[/...], /download/{identifier}/{filename} and /{node}/items/{identifier}/{filename}; see /docs.';
}
