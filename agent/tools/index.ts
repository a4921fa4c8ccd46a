/** The file tools (`read`, `write`, `edit`), the sandboxed `bash` tool, `commit` and `ask_human`. Browser tools live in browser*.ts. */
import type { Tool } from '../tool.js';
import { editTool } from './edit.js';
import { readTool } from './read.js';
import { writeTool } from './write.js';

export { OutputCollector, type TruncatedText, truncateMiddle } from '../../core/truncate.js';
export { type AskHuman, AskHumanArgs, type AskHumanReply, createAskHumanTool } from './ask-human.js';
export { type BashToolOptions, createBashTool } from './bash.js';
export { CommitArgs, type CommitReceipt, type Committer, createCommitTool } from './commit.js';
export { EditArgs, editTool } from './edit.js';
export { type ResolvedPath, resolveInWorkspace } from './paths.js';
export { READ_LIMITS, ReadArgs, readTool } from './read.js';
export { WriteArgs, writeTool } from './write.js';

/** Options of `createFileTools`. */
export interface FileToolsOptions {
  /** Only `read` (e.g. for the evaluator). Default false. */
  readOnly?: boolean;
}

/** The file tools for a role: `[read, write, edit]`, or `[read]` when read-only. */
export function createFileTools(options: FileToolsOptions = {}): Tool[] {
  const tools = options.readOnly ? [readTool] : [readTool, writeTool, editTool];
  return tools as unknown as Tool[];
}
