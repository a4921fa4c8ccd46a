import { z } from 'zod';
import type { ImageAttachment, ToolSchema } from './messages.js';

/** What every tool gets besides its arguments. */
export interface ToolContext {
  /** Real path (symlinks resolved) of the workspace root; file tools never leave it. */
  workspace: string;
  /** Workspace-relative paths (files or directories, e.g. `.git`, `feature_list.json`) this caller may not write. */
  protectedPaths: readonly string[];
  /** Workspace-relative paths (files or directories) this caller may not read either, each with the reason told. */
  unreadablePaths?: readonly { path: string; reason: string }[];
  /** Aborted when the session ends or is cancelled; long-running tools must stop. */
  signal: AbortSignal;
  /** Free-form services a tool family needs (e.g. the browser page); typed by that family. */
  services?: Record<string, unknown>;
}

/** What a tool returns: text for the model, an error flag, optional images and structured details for events. */
export interface ToolOutput {
  content: string;
  isError?: boolean;
  images?: ImageAttachment[];
  /** Not sent to the model: structured data for hooks and events (e.g. a parsed verdict, a file path written). */
  details?: Record<string, unknown>;
}

/** A tool: zod-validated arguments, a description for the model, and an implementation. */
export interface Tool<P extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  parameters: P;
  execute(args: z.infer<P>, context: ToolContext): Promise<ToolOutput | string>;
}

/** Declares a tool with type-checked arguments. */
export function defineTool<P extends z.ZodType>(tool: Tool<P>): Tool<P> {
  return tool;
}

/** The JSON Schema a model sees for a tool (from its zod parameters). */
export function toolSchema(tool: Tool): ToolSchema {
  const schema = z.toJSONSchema(tool.parameters, { target: 'draft-7', io: 'input' }) as Record<
    string,
    unknown
  >;
  delete schema.$schema;
  return { name: tool.name, description: tool.description, inputSchema: schema };
}

/** A tool failure the model can act on (thrown inside `execute`, turned into an error result by the loop). */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolError';
  }
}
