// DKAN's error bodies (JsonResponseTrait): {message, status, timestamp[, data]}; "No resource found" carries only message.
import { HttpError } from '../../platform/http/error-types.js';

export interface SchemaErrorData {
  keyword: string;
  pointer: string;
  message: string;
}

export interface DkanErrorBody {
  message: string;
  status?: number;
  timestamp?: string;
  data?: SchemaErrorData;
}

/** PHP's date("c"): second precision with an explicit offset. */
export const phpTimestamp = (now = new Date()): string => now.toISOString().replace(/\.\d{3}Z$/, '+00:00');

export class DkanError extends HttpError {
  constructor(
    statusCode: number,
    readonly body: DkanErrorBody,
  ) {
    super(statusCode, body.message);
  }
}

export const noResourceFound = (datasetId: string, index: string): DkanError =>
  new DkanError(404, { message: `No resource found for dataset ${datasetId} at index ${index}` });

export const distributionNotFound = (id: string): DkanError =>
  new DkanError(404, {
    message: `Error retrieving metadata: distribution ${id} not found.`,
    status: 404,
    timestamp: phpTimestamp(),
  });

/** A 400 with a plain DKAN message (no validation data). */
export const badRequest = (message: string): DkanError =>
  new DkanError(400, { message, status: 400, timestamp: phpTimestamp() });

/** DKAN's JSON Schema validation failure; `pointer` is the path into the query, like conditions/1/operator. */
export const schemaError = (keyword: string, pointer: string, message: string): DkanError =>
  new DkanError(400, {
    message: 'JSON Schema validation failed.',
    status: 400,
    timestamp: phpTimestamp(),
    data: { keyword, pointer, message },
  });

export const routeNotFound = (method: string, url: string): DkanError =>
  new DkanError(404, {
    message: `No route found for "${method} ${url.split('?')[0]}"`,
    status: 404,
    timestamp: phpTimestamp(),
  });

/** A resource whose import has not finished: DKAN's natural 400 that a client cannot cause, used when one is forced. */
export const notImported = (distributionId: string): DkanError =>
  badRequest(`No datastore storage found for ${distributionId}:1767225600.`);

/** MySQL's unknown-column error as DKAN sanitises it (AbstractDatabaseTable::sanitizedErrorMessage). */
export const columnNotFound = (): DkanError => badRequest('Column not found.');

/**
 * A query over mockyard's work budget (--query-timeout). DKAN answers a query its database fails with
 * JsonResponseTrait's 400; a query that ran out of time is the client's to narrow.
 */
export const queryTooLong = (budgetMs: number): DkanError =>
  badRequest(
    `The query ran longer than ${budgetMs} ms and was stopped. Narrow its conditions, match fewer words or columns, or page with a smaller offset.`,
  );

/** Every query worker stayed busy for the whole budget: the server's state, not the query's, so a 503 to retry. */
export const queryBusy = (reason: string): DkanError =>
  new DkanError(503, {
    message: `The datastore is busy: ${reason}. Try again.`,
    status: 503,
    timestamp: phpTimestamp(),
  });
