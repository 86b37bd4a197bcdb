// The archive area's one error path: archive.org's HTML error pages (nginx's built-in pages on the data nodes,
// IA's own 403 and maintenance pages), and the JSON errors of its search APIs.
import { STATUS_CODES } from '../../platform/http/node-http.js';
import type { ErrorAnswer, ErrorContext } from '../../platform/area.js';
import { HttpError } from '../../platform/http/error-types.js';

const HTML = 'text/html; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';

/** An archive.org error; `formatArchiveError` writes it. */
export class ArchiveError extends HttpError {
  constructor(
    status: number,
    message: string = STATUS_CODES[status] ?? 'Error',
    /** Headers the error page goes with (Content-Range on a 416). */
    readonly headers: Record<string, string> = {},
    /** advancedsearch's echo of the parameters it read, for Solr's responseHeader. */
    readonly params: Record<string, unknown> = {},
    /** A 503 of a busy server (a search found no free query process): answered with Retry-After. */
    readonly retry = false,
  ) {
    super(status, message);
  }

  // Otherwise a 503 here is the item's state (unavailable) or an unreadable file, not a busy server to retry at once.
  override get busy(): boolean {
    return this.retry;
  }
}

// nginx writes its built-in pages with CRLF line ends.
function nginxPage(status: number): string {
  const reason = status === 416 ? 'Requested Range Not Satisfiable' : (STATUS_CODES[status] ?? 'Error');
  const title = `${status} ${reason}`;
  return `<html>\r\n<head><title>${title}</title></head>\r\n<body>\r\n<center><h1>${title}</h1></center>\r\n<hr><center>nginx/1.24.0</center>\r\n</body>\r\n</html>\r\n`;
}

const FORBIDDEN = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>403 Forbidden</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font-family:"Helvetica Neue",Helvetica,Arial,sans-serif;color:#333;margin:40px auto;max-width:720px}h1{font-weight:normal}</style>
</head>
<body>
<h1>Item not available</h1>
<p>The item is not available due to issues with the item's content.</p>
<p>This item is not available to the public. If you believe this is an error, contact the Internet Archive.</p>
<hr>
<p><a href="https://archive.org/">Internet Archive</a></p>
</body>
</html>
`;

const MAINTENANCE = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Internet Archive: Scheduled Maintenance</title>
<style>body{font-family:"Helvetica Neue",Helvetica,Arial,sans-serif;color:#333;text-align:center;margin-top:80px}</style>
</head>
<body>
<h1>Internet Archive: Scheduled Maintenance</h1>
<p>Internet Archive services are temporarily offline.</p>
<p>Please check our Twitter feed for the latest information.</p>
<p>We apologize for the inconvenience.</p>
</body>
</html>
`;

function errorPage(status: number): string {
  return status === 403 ? FORBIDDEN : status === 503 ? MAINTENANCE : nginxPage(status);
}

/**
 * archive.org's pages carry no message: the status picks the page. Its search APIs answer 4xx in JSON:
 * the scrape API {error, errorType}, advancedsearch Solr's {responseHeader, error: {msg, code}}.
 */
export function formatArchiveError({ status, message, request, cause }: ErrorContext): ErrorAnswer {
  // Requests refused before routing (client-errors.ts) come without route options.
  const operation = request.routeOptions?.schema?.operationId;
  const text = message ?? STATUS_CODES[status] ?? 'Error';
  const own = cause instanceof ArchiveError ? cause : undefined;
  if (status < 500 && (operation === 'scrapeSearch' || operation === 'scrapeSearchPost'))
    return { contentType: JSON_TYPE, body: JSON.stringify({ error: text, errorType: 'QueryError' }) };
  if (status < 500 && operation === 'advancedSearch') {
    const body = {
      responseHeader: { status, QTime: 0, params: own?.params ?? {} },
      error: { msg: text, code: status },
    };
    return { contentType: JSON_TYPE, body: JSON.stringify(body) };
  }
  return { contentType: HTML, body: errorPage(status), ...(own ? { headers: own.headers } : {}) };
}
