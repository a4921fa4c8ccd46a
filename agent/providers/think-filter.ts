const OPEN = '<think>';
const CLOSE = '</think>';

/** Length of the longest end of `text` that could be the start of `tag` (a tag split across fragments). */
function partialTagLength(text: string, tag: string): number {
  for (let length = Math.min(tag.length - 1, text.length); length > 0; length--) {
    if (tag.startsWith(text.slice(text.length - length))) return length;
  }
  return 0;
}

/**
 * Separates `<think>…</think>` blocks (reasoning models behind Ollama, vLLM without a reasoning parser,
 * LM Studio) from the visible text, fragment by fragment: a tag split across two stream chunks is held
 * back until it is complete. An unclosed block at the end stays reasoning.
 */
export class ThinkTagFilter {
  private inside = false;
  private pending = '';
  /** Everything seen inside think blocks so far. */
  thinking = '';

  /** Feeds one fragment; returns the part of it that is visible text. */
  push(fragment: string): string {
    let text = this.pending + fragment;
    this.pending = '';
    let visible = '';
    while (text !== '') {
      const tag = this.inside ? CLOSE : OPEN;
      const at = text.indexOf(tag);
      if (at >= 0) {
        visible += this.take(text.slice(0, at));
        text = text.slice(at + tag.length);
        this.inside = !this.inside;
        continue;
      }
      const held = partialTagLength(text, tag);
      visible += this.take(text.slice(0, text.length - held));
      this.pending = text.slice(text.length - held);
      break;
    }
    return visible;
  }

  /** Ends the stream: a held-back partial tag was text after all. */
  flush(): string {
    const rest = this.pending;
    this.pending = '';
    return this.take(rest);
  }

  private take(text: string): string {
    if (!this.inside) return text;
    this.thinking += text;
    return '';
  }
}
