/** Small helpers for building regular expressions from text. */

/** `text` with every character that means something in a regular expression escaped, to match it literally. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
