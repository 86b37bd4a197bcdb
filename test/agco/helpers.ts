// Shared request helpers for the AGCO suites.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expectContract } from '../helpers/contract.js';

export const OP = 'StringDefinitions_GetDefinitions';
export const PATH = '/agco/api/v2/StringDefinitions';
export const AUTH = { authorization: 'Bearer test-token' };

export interface Translation {
  AuthorId: number;
  LanguageId: number;
  State: string;
  StringId: string;
  StringValue: string;
  Timestamp: string;
}
export interface Definition {
  Id: string;
  DescriptionForTranslator: string;
  DoNotTranslate: boolean;
  ParameterCount: number;
  Timestamp: string;
  Translations?: Translation[];
}
export interface Page {
  Entities: Definition[];
  Metadata: { TotalCount: number; Limit: number; Offset: number };
}
export interface ApiErrorBody {
  ErrorCode: number;
  UserMessage: string;
  DeveloperMessage: string;
  MoreInfo: string;
}

export function qs(params: Record<string, string | number | boolean>): string {
  const s = new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)])).toString();
  return s ? `?${s}` : '';
}

/** GET the operation, check it against the contract, and return the response. */
export async function call(
  app: FastifyInstance,
  params: Record<string, string | number | boolean> = {},
  headers: Record<string, string> = AUTH,
): Promise<LightMyRequestResponse> {
  const res = await app.inject({ method: 'GET', url: `${PATH}${qs(params)}`, headers });
  expectContract(OP, res);
  return res;
}

export async function page(
  app: FastifyInstance,
  params: Record<string, string | number | boolean> = {},
): Promise<Page> {
  const res = await call(app, params);
  if (res.statusCode !== 200) throw new Error(`expected 200, got ${res.statusCode}: ${res.body}`);
  return res.json() as Page;
}

export async function error(
  app: FastifyInstance,
  params: Record<string, string | number | boolean>,
  status = 400,
): Promise<ApiErrorBody> {
  const res = await call(app, params);
  if (res.statusCode !== status) throw new Error(`expected ${status}, got ${res.statusCode}: ${res.body}`);
  return res.json() as ApiErrorBody;
}

export const tsValue = (b64: string) => Buffer.from(b64, 'base64').readBigUInt64BE(0);
export const tsText = (value: bigint | number) => {
  const buf = Buffer.alloc(8);
  buf.writeBigUInt64BE(BigInt(value));
  return buf.toString('base64');
};
