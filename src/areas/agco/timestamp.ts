// SQL Server rowversion values: 8 bytes, big-endian, sent as base64 by ASP.NET.

export function timestampToBase64(value: number): string {
  const buf = Buffer.alloc(8);
  buf.writeBigUInt64BE(BigInt(value));
  return buf.toString('base64');
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The row version a base64 text encodes, or null unless it is canonical base64 of exactly 8 bytes. */
export function timestampFromBase64(text: string): bigint | null {
  // Query strings turn '+' into ' ' when a client forgets to encode it; accept that form too.
  const normalized = text.trim().replace(/ /g, '+');
  if (!BASE64.test(normalized)) return null;
  const buf = Buffer.from(normalized, 'base64');
  if (buf.length !== 8) return null;
  return buf.readBigUInt64BE(0);
}
