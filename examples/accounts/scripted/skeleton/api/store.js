// Accounts and notes, kept as JSON in data/ (DATA_DIR moves the folder). Each file is written whole on
// every change and renamed into place, so a crash never leaves a truncated file.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dataDir = process.env.DATA_DIR || path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'data');

function load(name) {
  try {
    const saved = JSON.parse(readFileSync(path.join(dataDir, name), 'utf8'));
    return saved !== null && typeof saved === 'object' && !Array.isArray(saved) ? saved : {};
  } catch (error) {
    if (error.code !== 'ENOENT') console.error(`Ignoring unreadable ${name}: ${error.message}`);
    return {};
  }
}

function save(name, value) {
  mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, name);
  writeFileSync(`${file}.tmp`, `${JSON.stringify(value, null, 2)}\n`);
  renameSync(`${file}.tmp`, file);
}

/** @type {Record<string, { salt: string, hash: string }>} username → password hash */
export const accounts = load('accounts.json');
/** @type {Record<string, { id: number, text: string }[]>} username → notes, oldest first */
export const notes = load('notes.json');

/** Writes the accounts after a change. */
export function saveAccounts() {
  save('accounts.json', accounts);
}

/** Writes the notes after a change. */
export function saveNotes() {
  save('notes.json', notes);
}
