// F-002: keeps the todos in data/todos.json (DATA_DIR overrides the folder) so they survive reloads and restarts.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { onChange, replaceAll } from './store.js';

const dataDir = process.env.DATA_DIR || path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'data');
const file = path.join(dataDir, 'todos.json');

function isTodo(value) {
  return (
    value !== null &&
    typeof value === 'object' &&
    Number.isInteger(value.id) &&
    typeof value.title === 'string' &&
    typeof value.completed === 'boolean'
  );
}

function load() {
  try {
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    if (Array.isArray(saved)) replaceAll(saved.filter(isTodo));
  } catch (error) {
    if (error.code !== 'ENOENT') console.error(`Ignoring unreadable ${file}: ${error.message}`);
  }
}

// Write-then-rename: a crash mid-write never leaves a truncated file behind.
onChange((todos) => {
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(`${file}.tmp`, `${JSON.stringify(todos, null, 2)}\n`);
  renameSync(`${file}.tmp`, file);
});

load();
