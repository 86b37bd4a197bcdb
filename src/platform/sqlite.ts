// better-sqlite3, in the version that runs on this Node: 13.x (Node-API) on Node 22 and later, and 12.x on
// Node 20, which 13.x does not support. 12.x aborts on Node 24 (its Statement destructor trips Node's
// environment-cleanup assertion, WiseLibs/better-sqlite3#1515), so neither version alone covers 20 to 24.
// Both are optional dependencies: npm installs the ones that build here, and this picks.
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

const major = Number(process.versions.node.split('.')[0]);

/** The package name to load, for code that loads it elsewhere (worker threads). */
export const SQLITE_MODULE = major >= 22 ? 'better-sqlite3' : 'better-sqlite3-node20';

const require = createRequire(import.meta.url);

function load(): typeof BetterSqlite3 {
  try {
    return require(SQLITE_MODULE) as typeof BetterSqlite3;
  } catch (err) {
    throw new Error(
      `mockyard needs ${SQLITE_MODULE} on Node ${process.versions.node}; run npm install (${(err as Error).message})`,
    );
  }
}

const Database: typeof BetterSqlite3 = load();
// The same names as better-sqlite3's own default export, so `Database.Database` and friends keep working.
declare namespace Database {
  type Database = BetterSqlite3.Database;
  type Statement = BetterSqlite3.Statement;
  type Options = BetterSqlite3.Options;
}
export default Database;
