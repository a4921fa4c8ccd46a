// SQLite through sql.js (SQLite compiled to WebAssembly: no native build). The whole database lives in memory
// and is written to data/app.sqlite after every change (to a temporary file first, then renamed, so a crash
// never leaves half a file). Migrations come from app/schema.js.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import initSqlJs from 'sql.js';
import { MIGRATIONS } from './schema.js';

export async function openDatabase(file) {
  const SQL = await initSqlJs();
  mkdirSync(path.dirname(file), { recursive: true });
  let bytes;
  try {
    bytes = readFileSync(file);
  } catch {
    bytes = undefined;
  }
  const db = new Database(new SQL.Database(bytes), file);
  db.migrate(MIGRATIONS);
  return db;
}

class Database {
  constructor(sqlite, file) {
    this.sqlite = sqlite;
    this.file = file;
    this.depth = 0;
  }

  /** Every row of a query, as objects. */
  all(sql, params = []) {
    const statement = this.sqlite.prepare(sql);
    try {
      statement.bind(params);
      const rows = [];
      while (statement.step()) rows.push(statement.getAsObject());
      return rows;
    } finally {
      statement.free();
    }
  }

  /** The first row of a query, or undefined. */
  get(sql, params = []) {
    return this.all(sql, params)[0];
  }

  /** A statement that changes data; returns the new row id. Saved at once (or at the end of the transaction). */
  run(sql, params = []) {
    this.sqlite.run(sql, params);
    const id = this.sqlite.exec('SELECT last_insert_rowid() AS id')[0]?.values[0]?.[0];
    if (this.depth === 0) this.save();
    return id;
  }

  /** Runs `work` in one transaction, saved once at the end; rolled back when it throws. */
  transaction(work) {
    this.depth += 1;
    if (this.depth === 1) this.sqlite.run('BEGIN');
    try {
      const result = work();
      if (this.depth === 1) this.sqlite.run('COMMIT');
      return result;
    } catch (error) {
      if (this.depth === 1) this.sqlite.run('ROLLBACK');
      throw error;
    } finally {
      this.depth -= 1;
      if (this.depth === 0) this.save();
    }
  }

  migrate(migrations) {
    this.sqlite.run(
      'CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)',
    );
    const applied = new Set(this.all('SELECT name FROM migrations').map((row) => row.name));
    for (const [name, sql] of migrations) {
      if (applied.has(name)) continue;
      this.transaction(() => {
        this.sqlite.run(sql);
        this.sqlite.run('INSERT INTO migrations (name, applied_at) VALUES (?, ?)', [
          name,
          new Date().toISOString(),
        ]);
      });
    }
    this.save();
  }

  save() {
    const temporary = `${this.file}.tmp`;
    writeFileSync(temporary, this.sqlite.export());
    renameSync(temporary, this.file);
  }
}
