// archive.org's HTML error pages: nginx's built-in pages on the data nodes, IA's own 403 and maintenance pages.
import { STATUS_CODES } from '../../platform/http/node-http.js';
import type { FastifyReply } from 'fastify';

export const HTML = 'text/html; charset=utf-8';

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

export function errorPage(status: number): string {
  return status === 403 ? FORBIDDEN : status === 503 ? MAINTENANCE : nginxPage(status);
}

/** Answers with the HTML page archive.org shows for this status. */
export function sendErrorPage(reply: FastifyReply, status: number, headers: Record<string, string> = {}): FastifyReply {
  return reply.code(status).headers(headers).type(HTML).send(errorPage(status));
}
