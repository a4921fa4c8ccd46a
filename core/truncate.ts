/**
 * Head + tail truncation of tool output. Models need the start (what ran) and the end (how it ended,
 * the error) far more than the middle, so the middle is what gets dropped, with a note saying so.
 */

/** What `truncateMiddle` and `OutputCollector.result` return. */
export interface TruncatedText {
  /** The text to show: whole, or head + note + tail. */
  text: string;
  /** True when bytes were dropped. */
  truncated: boolean;
  /** How many bytes of the original were dropped (0 when not truncated). */
  omittedBytes: number;
  /** Size of the original in bytes. */
  totalBytes: number;
}

/** `1,234,567` — thousands separators make byte counts readable for models and people. */
export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

/** `30 KB`, `1.5 MB`: a short human size (1 KB = 1024 bytes). */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} bytes`;
  const units = ['KB', 'MB', 'GB'];
  let value = n / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const shown = Number.isInteger(value) ? String(value) : value.toFixed(1).replace(/\.0$/, '');
  return `${shown} ${units[unit]}`;
}

/** The note put where bytes were dropped. */
export function omissionNote(omittedBytes: number, limitBytes: number, what = 'output'): string {
  return `\n[... ${formatCount(omittedBytes)} bytes omitted: ${what} exceeded the ${formatBytes(limitBytes)} limit ...]\n`;
}

/** Index <= `end` that does not split a UTF-8 sequence (moves back over continuation bytes). */
function headBoundary(buf: Uint8Array, end: number): number {
  let i = Math.min(end, buf.length);
  if (i >= buf.length) return buf.length;
  // Step back while the byte at i is a continuation byte: the cut then falls before its lead byte.
  while (i > 0 && ((buf[i] as number) & 0xc0) === 0x80) i--;
  return i;
}

/** Length of `buf` without a trailing incomplete UTF-8 sequence (the rest of it was cut off). */
function completePrefix(buf: Uint8Array): number {
  let lead = buf.length - 1;
  while (lead >= 0 && buf.length - lead < 4 && ((buf[lead] as number) & 0xc0) === 0x80) lead--;
  if (lead < 0) return buf.length;
  const byte = buf[lead] as number;
  const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
  return buf.length - lead >= needed ? buf.length : lead;
}

/** Index >= `start` where a UTF-8 sequence begins (skips leading continuation bytes). */
function tailBoundary(buf: Uint8Array, start: number): number {
  let i = Math.max(0, start);
  while (i < buf.length && ((buf[i] as number) & 0xc0) === 0x80) i++;
  return i;
}

/** Room left for content once the note is accounted for, split into head and tail halves. */
function splitBudget(maxBytes: number, note: string): { head: number; tail: number } {
  const room = Math.max(0, maxBytes - Buffer.byteLength(note));
  const head = Math.ceil(room / 2);
  return { head, tail: room - head };
}

/**
 * Keeps at most about `maxBytes` of `text` (UTF-8): its head and its tail, joined by a note saying how
 * many bytes were omitted and why. Never splits a multi-byte character.
 */
export function truncateMiddle(text: string, maxBytes: number, what = 'output'): TruncatedText {
  const buf = Buffer.from(text, 'utf8');
  if (buf.length <= maxBytes) return { text, truncated: false, omittedBytes: 0, totalBytes: buf.length };
  // The note's own length depends on the omitted count; size it with the worst case (all omitted).
  const { head, tail } = splitBudget(maxBytes, omissionNote(buf.length, maxBytes, what));
  const headEnd = headBoundary(buf, head);
  const tailStart = tailBoundary(buf, buf.length - tail);
  const omitted = tailStart - headEnd;
  const out =
    buf.subarray(0, headEnd).toString('utf8') +
    omissionNote(omitted, maxBytes, what) +
    buf.subarray(tailStart).toString('utf8');
  return { text: out, truncated: true, omittedBytes: omitted, totalBytes: buf.length };
}

/**
 * Collects a process stream keeping only the first and last bytes (a fixed head buffer and a ring
 * buffer for the tail), so memory stays bounded however much the process writes.
 */
export class OutputCollector {
  private readonly head: Buffer;
  private headUsed = 0;
  private readonly ring: Buffer;
  private ringStart = 0;
  private ringUsed = 0;
  private total = 0;
  private readonly limitBytes: number;
  private readonly what: string;

  /** `limitBytes` is the budget of the text eventually shown (head + note + tail). */
  constructor(limitBytes: number, what = 'output') {
    this.limitBytes = limitBytes;
    this.what = what;
    const { head, tail } = splitBudget(limitBytes, omissionNote(Number.MAX_SAFE_INTEGER, limitBytes, what));
    this.head = Buffer.alloc(head);
    this.ring = Buffer.alloc(tail);
  }

  /** Bytes seen so far. */
  get totalBytes(): number {
    return this.total;
  }

  /** Adds a chunk of output. */
  push(chunk: Uint8Array): void {
    this.total += chunk.length;
    let data = chunk;
    if (this.headUsed < this.head.length) {
      const take = Math.min(this.head.length - this.headUsed, data.length);
      this.head.set(data.subarray(0, take), this.headUsed);
      this.headUsed += take;
      data = data.subarray(take);
    }
    if (data.length > 0) this.pushTail(data);
  }

  private pushTail(data: Uint8Array): void {
    const size = this.ring.length;
    if (size === 0) return;
    const src = data.length > size ? data.subarray(data.length - size) : data;
    // Write at the logical end, wrapping; when full, the oldest bytes are overwritten.
    let writeAt = (this.ringStart + this.ringUsed) % size;
    for (let offset = 0; offset < src.length; ) {
      const n = Math.min(size - writeAt, src.length - offset);
      this.ring.set(src.subarray(offset, offset + n), writeAt);
      offset += n;
      writeAt = (writeAt + n) % size;
    }
    const used = this.ringUsed + src.length;
    if (used > size) this.ringStart = (this.ringStart + (used - size)) % size;
    this.ringUsed = Math.min(size, used);
  }

  private tailBytes(): Buffer {
    const first = this.ring.subarray(
      this.ringStart,
      Math.min(this.ring.length, this.ringStart + this.ringUsed),
    );
    const wrapped = this.ringUsed - first.length;
    return wrapped > 0 ? Buffer.concat([first, this.ring.subarray(0, wrapped)]) : Buffer.from(first);
  }

  /** The collected text: whole when it fit, else head + note + tail (UTF-8 safe). */
  result(): TruncatedText {
    const tail = this.tailBytes();
    const headBuf = this.head.subarray(0, this.headUsed);
    if (this.total === this.headUsed + tail.length) {
      const text = Buffer.concat([headBuf, tail]).toString('utf8');
      return { text, truncated: false, omittedBytes: 0, totalBytes: this.total };
    }
    const headEnd = completePrefix(headBuf);
    const tailStart = tailBoundary(tail, 0);
    const omitted = this.total - headEnd - (tail.length - tailStart);
    const text =
      headBuf.subarray(0, headEnd).toString('utf8') +
      omissionNote(omitted, this.limitBytes, this.what) +
      tail.subarray(tailStart).toString('utf8');
    return { text, truncated: true, omittedBytes: omitted, totalBytes: this.total };
  }
}
