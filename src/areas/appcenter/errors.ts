// App Center's gateway error body: {message, statusCode, code}, with a per-request correlation id.
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from '../../platform/http/node-http.js';
import { HttpError } from '../../platform/http/error-types.js';

export interface GatewayError {
  message: string;
  statusCode: number;
  code: string;
}

// 401 and 404 use the gateway's reason-phrase codes as observed live; 400 uses `BadRequest`, the code
// the spec's ErrorDetails declares for the distribute API, so the body fits both documented shapes.
const KINDS: Record<number, { code: string; text: string }> = {
  400: { code: 'BadRequest', text: 'Bad request' },
  401: { code: 'Unauthorized', text: 'Unauthorized' },
  404: { code: 'Not Found', text: 'Not found' },
};

export class AppCenterError extends HttpError {
  constructor(
    statusCode: 400 | 401 | 404,
    /** Replaces the default text before the correlation id (e.g. which parameter was wrong). */
    readonly detail?: string,
  ) {
    super(statusCode, detail ?? KINDS[statusCode]!.text);
  }
}

/** The gateway's code for other statuses is the reason phrase without spaces, e.g. "InternalServerError". */
function kindOf(statusCode: number): { code: string; text: string } {
  const known = KINDS[statusCode];
  if (known) return known;
  const reason = STATUS_CODES[statusCode] ?? 'Error';
  return { code: reason.replace(/[^A-Za-z]/g, ''), text: reason };
}

export function errorBody(statusCode: number, detail?: string): GatewayError {
  const kind = kindOf(statusCode);
  // Platform messages end in a full stop already; the gateway adds its own before the correlation id.
  const text = (detail ?? kind.text).replace(/\.$/, '');
  return { message: `${text}. Correlation ID: ${randomUUID()}`, statusCode, code: kind.code };
}
