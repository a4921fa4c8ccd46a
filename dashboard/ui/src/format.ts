// Formatting of numbers, money, times and durations for display.

/** `$1.23`, or `—` when unknown. */
export function money(usd: number | null | undefined): string {
  if (usd === null || usd === undefined) return '—';
  return `$${usd < 10 ? usd.toFixed(2) : usd.toFixed(1)}`;
}

/** `1.2k`, `3.4M`. */
export function count(n: number | null | undefined): string {
  if (n === null || n === undefined) return '—';
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(1)}M`;
  if (n >= 10_000) return `${Math.round(n / 1000)}k`;
  if (n >= 1000) return `${(n / 1000).toFixed(1)}k`;
  return String(n);
}

/** `4h 05m`, `12m 30s`, `8s`. */
export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h ${String(m % 60).padStart(2, '0')}m`;
  return `${Math.floor(h / 24)}d ${h % 24}h`;
}

/** Local date and time, short. */
export function dateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

/** Local time of day with seconds. */
export function time(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleTimeString(undefined, { hour12: false });
}

/** Local time of day to the minute (the start of an hour's bucket: its seconds say nothing). */
export function hourMinute(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime())
    ? iso
    : d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
}

/** Elapsed time of something that started at `start` and ended at `end` (or is still going). */
export function elapsed(start: string | null, end: string | null, now: number = Date.now()): string {
  if (!start) return '—';
  return duration((end ? Date.parse(end) : now) - Date.parse(start));
}

/**
 * A run's cost: `$1.23`; `$1.23 + unknown (2 sessions)` when some sessions' models have no price; `unknown
 * (3 sessions)` when none has one (`null`).
 */
export function costText(usd: number | null, unknownSessions: number): string {
  const unknown = `unknown (${unknownSessions} session${unknownSessions === 1 ? '' : 's'})`;
  if (usd === null) return unknown;
  return unknownSessions > 0 ? `${money(usd)} + ${unknown}` : money(usd);
}

/** The last path segment of a workspace (a directory, or `url#branch` for a remote one). */
export function workspaceName(workspace: string): string {
  const [where = workspace, branch] = workspace.split('#');
  const name =
    where
      .replace(/[/\\]+$/, '')
      .split(/[/\\]/)
      .pop()
      ?.replace(/\.git$/, '') ?? where;
  return branch ? `${name}#${branch}` : name;
}

/** A run id's distinguishing tail (ids are `r-<time><6 hex>`): `1a27b1`. */
export function shortRunId(id: string): string {
  return id.length > 8 ? id.slice(-6) : id;
}
