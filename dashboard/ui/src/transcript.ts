// The transcript viewer: a session's conversation and events, always rendered as text.
import { api } from './api.js';
import { el, replaceChildren } from './dom.js';
import { time } from './format.js';

const PAGE = 200;

interface Block {
  type?: string;
  text?: string;
  name?: string;
  arguments?: unknown;
  content?: string;
  isError?: boolean;
}

/** An open transcript dialog. */
export interface TranscriptDialog {
  seq: number;
  close(): void;
}

/** Opens the transcript of session `seq` in a modal dialog; `onClosed` runs when it closes (Esc, button, close()). */
export function openTranscript(runId: string, seq: number, onClosed: () => void): TranscriptDialog {
  const list = el('ol', { class: 'transcript', id: 'transcript-lines' });
  const status = el('span', { class: 'muted small' }, 'Loading…');
  const more = el('button', { type: 'button', class: 'small-button' }, 'load more');
  const close = el('button', { type: 'button', class: 'small-button' }, 'close');
  const dialog = el(
    'dialog',
    { class: 'transcript-dialog', id: 'transcript' },
    el('div', { class: 'panel-head' }, el('h2', null, `Session ${seq} transcript`), status, close),
    list,
    more,
  );
  document.body.appendChild(dialog);
  close.addEventListener('click', () => dialog.close());
  dialog.addEventListener('close', () => {
    dialog.remove();
    onClosed();
  });
  let offset = 0;
  const load = async () => {
    try {
      const page = await api.transcript(runId, seq, offset, PAGE);
      for (const line of page.lines) list.appendChild(renderLine(line));
      offset += page.lines.length;
      status.textContent = `${offset} of ${page.total} lines`;
      more.hidden = offset >= page.total;
    } catch (error) {
      status.textContent = (error as Error).message;
      more.hidden = true;
    }
  };
  more.addEventListener('click', () => void load());
  dialog.showModal();
  void load();
  return { seq, close: () => dialog.close() };
}

function renderLine(raw: unknown): HTMLLIElement {
  const line = (raw ?? {}) as {
    kind?: string;
    at?: string;
    system?: string;
    tools?: string[];
    message?: unknown;
    event?: unknown;
    raw?: string;
  };
  const item = el('li', { class: `line line-${line.kind ?? 'unknown'}` });
  const stamp = el('span', { class: 'muted small' }, time(line.at));
  if (line.kind === 'system') {
    replaceChildren(
      item,
      stamp,
      el(
        'details',
        null,
        el('summary', null, `system prompt · tools: ${(line.tools ?? []).join(', ')}`),
        el('pre', null, line.system ?? ''),
      ),
    );
  } else if (line.kind === 'message') {
    const message = (line.message ?? {}) as { role?: string; content?: Block[] };
    replaceChildren(
      item,
      stamp,
      el('strong', null, ` ${message.role ?? '?'}`),
      ...(message.content ?? []).map(renderBlock),
    );
  } else if (line.kind === 'event') {
    const event = (line.event ?? {}) as Record<string, unknown>;
    const { type, at: _at, sessionId: _id, ...rest } = event;
    replaceChildren(
      item,
      stamp,
      el('span', { class: 'event-type' }, ` ${String(type)} `),
      el('code', null, JSON.stringify(rest)),
    );
  } else {
    replaceChildren(item, el('pre', null, line.raw ?? JSON.stringify(raw)));
  }
  return item;
}

function renderBlock(block: Block): HTMLElement {
  if (block.type === 'text') return el('pre', { class: 'block-text' }, block.text ?? '');
  if (block.type === 'tool_call') {
    return el(
      'pre',
      { class: 'block-call' },
      `→ ${block.name ?? '?'} ${JSON.stringify(block.arguments ?? {}, null, 1)}`,
    );
  }
  if (block.type === 'tool_result') {
    return el('pre', { class: block.isError ? 'block-result error' : 'block-result' }, block.content ?? '');
  }
  return el('pre', null, JSON.stringify(block));
}
