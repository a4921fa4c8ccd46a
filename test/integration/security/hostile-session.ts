/**
 * Shared by the hostile-session tests (git-hostile, read-hostile): a scripted model server that plays one
 * tool call (or a stop) per turn and records what came back, a canary directory outside the workspace, a
 * hostile script inside it that would leave a trace of every run, and keys in the environment that must never
 * reach a request body.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import type { AgentEvent } from '../../../agent/events.js';
import { sandboxInfo } from '../../../box/bubblewrap.js';
import type { SessionResult } from '../../../roles/session-result.js';
import type { HarnessNotice, RoleSessionInput } from '../../../roles/types.js';
import { lastToolResults, lastUserText, turnIndex } from '../../../testkit/policies.js';
import { startModelServer } from '../../../testkit/server.js';
import type { ModelServer, ScriptedToolCall } from '../../../testkit/types.js';
import { makeWorkspace, removeWorkspace, runSession } from '../roles/role-helpers.js';

/** One scripted turn: a tool call, or a stop (a text reply; the harness may send the model back). */
export type Turn = ScriptedToolCall | 'stop';

/** What came back for a turn: the tool result, or the harness's message after a stop. */
export interface TurnResult {
  content: string;
  isError: boolean;
}

/** What one played session produced. */
export interface Played {
  result: SessionResult;
  /** One entry per turn of the script, in order. */
  replies: Array<TurnResult | undefined>;
  notices: HarnessNotice[];
  events: AgentEvent[];
  /** Every request body of the session. */
  bodies: string[];
}

/** Keys put in the harness's environment for the test: they must never appear in a request body. */
export const KEYS = {
  ANTHROPIC_API_KEY: 'sk-ant-api03-GITHOSTILECANARY-0000000000000000',
  OPENAI_API_KEY: 'sk-proj-GITHOSTILECANARY-1111111111111111',
};

/** A scripted model server for hostile sessions; `play` runs one session through it. */
export class HostileServer {
  private script: Turn[] = [];
  private replies: Array<TurnResult | undefined> = [];
  private savedEnv: NodeJS.ProcessEnv = {};

  private constructor(readonly server: ModelServer) {}

  /** Starts the server and puts {@link KEYS} into the environment (restored by `close`). */
  static async start(): Promise<HostileServer> {
    let self: HostileServer | undefined;
    const server = await startModelServer({
      policy: (conversation) => {
        if (!self) return { text: 'Done.' };
        const turn = turnIndex(conversation);
        if (turn > 0) {
          const tool = lastToolResults(conversation)[0];
          self.replies[turn - 1] = tool
            ? { content: tool.content, isError: tool.isError }
            : { content: lastUserText(conversation), isError: false };
        }
        const step = self.script[turn];
        return step === undefined || step === 'stop' ? { text: 'Done.' } : { toolCalls: [step] };
      },
    });
    self = new HostileServer(server);
    self.savedEnv = { ...process.env };
    Object.assign(process.env, KEYS);
    return self;
  }

  /** Plays `script` in one session of `input.role` (sandbox default: bubblewrap). */
  async play(
    script: Turn[],
    input: Pick<RoleSessionInput, 'role' | 'workspace' | 'dataDir'> & Partial<RoleSessionInput>,
  ): Promise<Played> {
    this.script = script;
    this.replies = [];
    const firstRequest = this.server.requests.length;
    const notices: HarnessNotice[] = [];
    const events: AgentEvent[] = [];
    const result = await runSession(this.server, {
      featureIds: input.role === 'generator' ? ['F-001'] : [],
      limits: { maxSteps: script.length + 8, maxMinutes: 5 },
      sandbox: { sandbox: 'bubblewrap', network: 'none' },
      sink: (event) => events.push(event),
      onNotice: (notice) => notices.push(notice),
      ...input,
    });
    return {
      result,
      replies: [...this.replies],
      notices,
      events,
      bodies: this.server.requests.slice(firstRequest).map((request) => request.body),
    };
  }

  async close(): Promise<void> {
    process.env = this.savedEnv;
    await this.server.close();
  }
}

/** The suite's shared parts, set up by {@link hostileSuite}. */
export interface HostileSuite {
  /** The file's server (started before its first test). */
  readonly hostile: HostileServer;
  /** A fresh workspace, removed after the file's tests. */
  fresh(files?: Record<string, string>): Promise<HostileWorkspace>;
}

/** Registers a test file's hooks: bubblewrap required, one hostile server, workspaces cleaned up at the end. */
export function hostileSuite(): HostileSuite {
  let server: HostileServer | undefined;
  const workspaces: HostileWorkspace[] = [];
  beforeAll(async () => {
    const info = await sandboxInfo();
    if (!info.bubblewrap) throw new Error(`bubblewrap is required for this test: ${info.reason}`);
    server = await HostileServer.start();
  });
  afterAll(async () => {
    await server?.close();
    for (const w of workspaces) removeWorkspace(w.workspace);
  });
  return {
    get hostile() {
      if (!server) throw new Error('the hostile server starts in beforeAll');
      return server;
    },
    async fresh(files) {
      const w = await hostileWorkspace(files);
      workspaces.push(w);
      return w;
    },
  };
}

/** A workspace with a two-feature list, an app and a progress log; a canary dir and a secret beside it. */
export interface HostileWorkspace {
  root: string;
  workspace: string;
  dataDir: string;
  /** Outside the workspace: holds `keep.txt`; a program that ran leaves `ran-<name>` here. */
  canary: string;
  /** A file outside the workspace (in the data dir: hidden from the sandbox) with a recognisable secret. */
  secretFile: string;
  secret: string;
  /** The command line of the hostile script for a run named `name`. */
  program(name: string): string;
}

export const FEATURES = [
  {
    id: 'F-001',
    category: 'functional',
    description: 'Say hello',
    steps: ['Open /', 'See hello'],
    passes: false,
  },
  {
    id: 'F-002',
    category: 'functional',
    description: 'Say bye',
    steps: ['Open /bye', 'See bye'],
    passes: false,
  },
];

/** The files of a built workspace (what a generator session starts from). */
export const BUILT_FILES: Record<string, string> = {
  'feature_list.json': `${JSON.stringify(FEATURES, null, 2)}\n`,
  'app.js': 'console.log("hello");\n',
  'progress.md': '# Progress\n',
  'init.sh': '#!/usr/bin/env bash\nexec node app.js\n',
};

/** A fresh workspace (committed) for one hostile session: `files`, by default {@link BUILT_FILES}. */
export async function hostileWorkspace(
  files: Record<string, string> = BUILT_FILES,
): Promise<HostileWorkspace> {
  const { workspace, dataDir } = await makeWorkspace(files);
  const root = path.dirname(workspace);
  const canary = path.join(root, 'canary');
  fs.mkdirSync(canary);
  fs.writeFileSync(path.join(canary, 'keep.txt'), 'untouched\n');
  fs.mkdirSync(dataDir, { recursive: true });
  // Ten characters: as much as a JSON parse error quotes of its input.
  const secret = `SCRT${randomBytes(3).toString('hex')}`;
  const secretFile = path.join(dataDir, 'secret.json');
  // Plain text: a JSON parser quoting it in an error message would carry it to the model.
  fs.writeFileSync(secretFile, `${secret}: not to be shown (and not JSON)\n`);
  return {
    root,
    workspace,
    dataDir,
    canary,
    secretFile,
    secret,
    program: (name) => `${workspace}/evil.sh ${name}`,
  };
}

/** The hostile script, written by the model: leaves `ran-<name>` (its environment) outside, a leak file inside. */
export function writeEvilScript(w: HostileWorkspace): ScriptedToolCall[] {
  return [
    {
      name: 'write',
      arguments: {
        path: 'evil.sh',
        content: `#!/bin/sh\nenv > "${w.canary}/ran-$1" 2>/dev/null\nenv > "${w.workspace}/leak-$1.txt" 2>/dev/null\ncat\n`,
      },
    },
    { name: 'bash', arguments: { command: 'chmod +x evil.sh && echo ready' } },
  ];
}

/** Honest work after the attempts: a change, the `commit` tool, then a look at anything a hostile run leaked. */
export const HONEST_WORK: ScriptedToolCall[] = [
  {
    name: 'bash',
    arguments: { command: 'echo "// more" >> app.js && echo "- worked" >> progress.md && echo ok' },
  },
  { name: 'commit', arguments: { message: 'F-001: work' } },
  { name: 'bash', arguments: { command: 'cat leak-*.txt 2>/dev/null; echo end-of-leaks' } },
];

/** Bash as a scripted call. */
export function bash(command: string): ScriptedToolCall {
  return { name: 'bash', arguments: { command } };
}

/** What a refused write to the read-only `.git` looks like, with the hint the harness adds. */
export const READ_ONLY_GIT =
  /(Read-only file system|Device or resource busy)[\s\S]*hint: \.git is read-only here/;

/** After every hostile session: nothing ran, nothing outside changed, no key and no secret in any request. */
export function expectContained(w: HostileWorkspace, played: Played): void {
  expect(fs.readdirSync(w.canary)).toEqual(['keep.txt']);
  expect(fs.readFileSync(path.join(w.canary, 'keep.txt'), 'utf8')).toBe('untouched\n');
  const bodies = played.bodies.join('\n');
  expect(played.bodies.length).toBeGreaterThan(0);
  for (const key of Object.values(KEYS)) expect(bodies).not.toContain(key);
  expect(bodies).not.toContain(w.secret);
  expect(fs.readdirSync(w.workspace).filter((name) => name.startsWith('leak-'))).toEqual([]);
}

/** The kinds of the integrity violations the session reported. */
export function violationKinds(played: Played): string[] {
  return played.result.violations.map((violation) => violation.kind);
}

/** The details of the session's `git_config_tampered` violations, joined. */
export function tamperDetails(played: Played): string {
  const fromNotices = played.notices.flatMap((notice) =>
    notice.type === 'integrity.violation' && notice.violation.kind === 'git_config_tampered'
      ? [notice.violation.detail]
      : [],
  );
  return fromNotices.join('\n');
}
