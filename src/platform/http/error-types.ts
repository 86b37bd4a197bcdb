// The error type area handlers throw; the area's formatError writes its body (see area-errors.ts).

/** An error with an HTTP status. Areas subclass it to carry what their error body needs. */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }

  /** A thrown 503 means "busy, try again" (a work budget ran out), answered with Retry-After. */
  get busy(): boolean {
    return this.statusCode === 503;
  }
}
