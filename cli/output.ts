/** Formatting shared by the CLI commands: progress bars, money, durations, tables. Pure functions. */

/** Something text can be written to (process.stdout, a test buffer). */
export interface TextSink {
  write(text: string): unknown;
}

/** `[██████░░░░]`: `done` of `total` as a bar `width` cells wide (empty when total is 0). */
export function formatBar(done: number, total: number, width = 20): string {
  const ratio = total > 0 ? Math.min(1, Math.max(0, done / total)) : 0;
  const filled = Math.round(ratio * width);
  return `[${'█'.repeat(filled)}${'░'.repeat(width - filled)}]`;
}

/** `$1.23`; `unknown` when the amount is not known (a model without a price), never `$0.00` for unknown. */
export function formatMoney(usd: number | null | undefined): string {
  if (usd === null || usd === undefined || !Number.isFinite(usd)) return 'unknown';
  if (usd > 0 && usd < 0.005) return '<$0.01';
  return `$${usd.toFixed(2)}`;
}

const pad2 = (value: number) => String(value).padStart(2, '0');

/** A compact duration: `850ms`, `45s`, `3m 05s`, `1h 02m`, `2d 03h`; `-` when unknown or negative. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms < 0) return '-';
  if (ms < 1_000) return `${Math.round(ms)}ms`;
  const seconds = Math.floor(ms / 1_000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${pad2(seconds % 60)}s`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours}h ${pad2(minutes % 60)}m`;
  return `${Math.floor(hours / 24)}d ${pad2(hours % 24)}h`;
}

/** Milliseconds from `fromIso` to `to` (or null when `fromIso` is null or unparsable). */
export function elapsedMs(fromIso: string | null | undefined, to: Date): number | null {
  if (!fromIso) return null;
  const from = Date.parse(fromIso);
  return Number.isNaN(from) ? null : Math.max(0, to.getTime() - from);
}

/** `2025-01-31 23:05` in UTC (the timestamps of a run are UTC ISO strings); `-` when null. */
export function formatTimestamp(iso: string | null | undefined): string {
  if (!iso) return '-';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.toISOString().slice(0, 16).replace('T', ' ')}Z`;
}

/** Cuts `text` to `width` characters, ending in `…` when cut. */
export function truncate(text: string, width: number): string {
  if (width <= 0) return '';
  return text.length <= width ? text : `${text.slice(0, Math.max(0, width - 1))}…`;
}

/** Left-aligned columns separated by two spaces, a header row first; trailing spaces trimmed. */
export function formatTable(headers: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    widths
      .map((width, column) => (cells[column] ?? '').padEnd(width))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}

/** Aligned `label  value` lines (the human output of `status`). */
export function formatFields(fields: ReadonlyArray<readonly [label: string, value: string]>): string {
  const width = Math.max(0, ...fields.map(([label]) => label.length));
  return fields.map(([label, value]) => `${label.padEnd(width)}  ${value}`).join('\n');
}
