// The state shared while one query is read: its sources, its counters, and the first deferred storage error.
import { badRequest, columnNotFound } from './errors.js';
import { RECORD_NUMBER, type Resource } from './datasets.js';
import { schemaError } from './errors.js';
import type { ColumnRef, Source } from './query-model.js';

export class Reader {
  conditionCount = 0;
  expressionNodes = 0;
  /** The first storage-level error: raised only after the whole query passed validation, as DKAN does. */
  pending: Error | null = null;
  readonly sources: Source[] = [];
  readonly byAlias = new Map<string, Source>();

  defer(err: Error): void {
    this.pending ??= err;
  }

  get primary(): Source {
    return this.sources[0]!;
  }

  addSource(alias: string, resource: Resource): Source {
    const source: Source = { alias, resource, sql: `t${this.sources.length}` };
    this.sources.push(source);
    if (!this.byAlias.has(alias)) this.byAlias.set(alias, source);
    return source;
  }

  /** A column of a resource (the primary one when `alias` is undefined); unknown ones are MySQL's "Column not found". */
  column(alias: string | undefined, name: string, allowRecordNumber = true): ColumnRef {
    const source = alias === undefined ? this.primary : this.byAlias.get(alias);
    const column =
      source?.resource.byName.get(name) ??
      (allowRecordNumber && name === RECORD_NUMBER.name ? RECORD_NUMBER : undefined);
    if (!source || !column) {
      this.defer(columnNotFound());
      return { source: this.primary, column: RECORD_NUMBER };
    }
    return { source, column };
  }

  resourceAlias(v: unknown, pointer: string): string | undefined {
    if (v === undefined) return undefined;
    if (typeof v !== 'string') throw schemaError('type', pointer, 'The attribute must be a string (a resource alias).');
    return v;
  }

  /** A property given as a plain string: a column of the primary resource (SelectFactory::normalizeProperty). */
  stringProperty(name: string): ColumnRef {
    if (!/^[^.]+$/.test(name)) {
      this.defer(badRequest(`Unsafe property name: ${name}`));
      return { source: this.primary, column: RECORD_NUMBER };
    }
    return this.column(undefined, name, false);
  }
}
