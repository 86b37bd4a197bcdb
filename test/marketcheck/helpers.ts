import type { Stats } from '../../fixtures/marketcheck/stats.js';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type Database from 'better-sqlite3';

export const OP = 'getPopularCars';

export interface Car {
  make: string;
  model: string;
  count: number;
  country: string;
  state?: string;
  city?: string;
  inventory_type: string;
  price_stats: Stats;
  miles_stats: Stats;
  dom_stats: Stats;
}

/** GET /marketcheck/popular/cars with the given query (values used as given, pipes included). */
export function popular(app: FastifyInstance, query: Record<string, string>): Promise<LightMyRequestResponse> {
  const qs = Object.entries(query)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join('&');
  return app.inject({ method: 'GET', url: `/marketcheck/popular/cars?${qs}` });
}

export interface Where {
  carType: 'new' | 'used';
  country: 'us' | 'ca';
  state?: string;
  city?: string;
}

/** The ranking computed straight from the listings table, independently of the precomputed text. */
export function expectedRanking(db: Database.Database, w: Where, limit = 50) {
  const filters = ['car_type = @carType', 'country = @country'];
  if (w.state !== undefined) filters.push('state = @state');
  if (w.city !== undefined) filters.push('city = @city');
  return db
    .prepare(
      `SELECT make, model, COUNT(*) AS count, MIN(price) AS minPrice, MAX(price) AS maxPrice, AVG(price) AS meanPrice,
              MIN(miles) AS minMiles, MAX(miles) AS maxMiles, MIN(dom) AS minDom, MAX(dom) AS maxDom, AVG(dom) AS meanDom
       FROM marketcheck_listings WHERE ${filters.join(' AND ')}
       GROUP BY make, model ORDER BY count DESC, make, model LIMIT ${limit}`,
    )
    .all(w) as {
    make: string;
    model: string;
    count: number;
    minPrice: number;
    maxPrice: number;
    meanPrice: number;
    minMiles: number;
    maxMiles: number;
    minDom: number;
    maxDom: number;
    meanDom: number;
  }[];
}

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}
