/** What the catalog's parts share: one database, its statements, the file store and the events. */
import type { EventEmitter } from 'node:events';
import type Database from 'better-sqlite3';
import type { FileStore } from './files.ts';
import type { Params } from './rows.ts';
import type { Statements } from './statements.ts';
import type { CatalogEvents } from './types.ts';

export interface CatalogContext {
  readonly dataDir: string;
  readonly db: Database.Database;
  readonly stmt: Statements;
  readonly files: FileStore;
  readonly events: EventEmitter<CatalogEvents>;
  /** Refs being inserted now: no second insert may reuse them, no sweep may take their files. */
  readonly pending: Set<string>;
  /** A cached prepared statement for dynamic SQL (filters make a handful of shapes). */
  query(sql: string): Database.Statement<Params[]>;
  closed(): boolean;
}
