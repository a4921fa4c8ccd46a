/**
 * Command deny list: defence in depth in front of the sandbox, NOT the boundary. It catches the
 * blatant forms of destructive or exfiltrating commands so the model gets a clear reason instead of
 * damage; anything cleverer (obfuscation, eval, scripts) is the sandbox's job. Patterns favour
 * refusing a rare legitimate form (the reason says what to do instead) over missing a blatant one.
 */

/** One deny rule: a pattern tested against the whole command text, and what the model is told. */
export interface PolicyRule {
  pattern: RegExp;
  reason: string;
}

/** A command policy: the rules, all checked. */
export interface CommandPolicy {
  rules: readonly PolicyRule[];
}

/** The verdict of `checkCommand`. */
export type PolicyDecision = { allowed: true } | { allowed: false; reason: string };

// Fragments: a command word boundary, and "the rest of this simple command" (no ; & | newline).
const START = String.raw`(?:^|[\s;&|({\x60]|\$\()`;
const ARGS = String.raw`[^;&|\n]*`;
const END = String.raw`(?=$|[\s;&|)\x60])`;

function rule(source: string, reason: string, flags = ''): PolicyRule {
  return { pattern: new RegExp(source, flags), reason };
}

/** The default deny list, as a readable table of (pattern, reason). */
export const DEFAULT_DENY_RULES: readonly PolicyRule[] = [
  rule(
    String.raw`([^\s(){};|&]+)\s*\(\s*\)\s*\{[^}]*\1\s*\|\s*\1\s*&`,
    'fork bomb: a function that pipes into itself in the background exhausts the process table',
  ),
  rule(
    `${START}rm(?=\\s)${ARGS}(?:\\s-[a-zA-Z]*[rR][a-zA-Z]*|\\s--recursive)${ARGS}\\s` +
      String.raw`(?:/|/\*|/\.|~|~/|~/\*|\$HOME|\$\{HOME\}|\$HOME/\*?|\.\.|\.\./?\*?|(?:\./)?\.git/?)${END}`,
    'recursive delete of /, the home directory, the parent directory or .git: delete specific paths inside the workspace instead',
  ),
  rule(`${START}rm(?=\\s)${ARGS}--no-preserve-root`, 'rm --no-preserve-root is never needed'),
  rule(
    `${START}git\\s${ARGS}\\bpush\\b${ARGS}(?:\\s--force\\b|\\s--force-with-lease\\b|\\s-[a-zA-Z]*f[a-zA-Z]*${END}|\\s\\+[^\\s]+)`,
    'force push rewrites shared history: the harness handles pushing',
  ),
  rule(
    `${START}git\\s${ARGS}\\bpush\\b${ARGS}(?:\\s--delete\\b|\\s-d${END}|\\s:[^\\s]+)`,
    'deleting remote branches is not allowed: the harness handles pushing',
  ),
  rule(
    `${START}git\\s${ARGS}\\breset\\s${ARGS}--hard${ARGS}(?:rev-list\\s${ARGS}--max-parents=0|HEAD~\\d{2,}|--root)`,
    'resetting the branch to its root discards committed work: revert specific changes instead',
  ),
  rule(
    `${START}git\\s${ARGS}\\b(?:filter-branch|filter-repo|reflog\\s+expire|update-ref\\s+-d|checkout\\s+--orphan|replace)\\b`,
    'rewriting or deleting git history is not allowed: make a new commit instead',
  ),
  rule(
    `${START}(?:pkill|killall)\\s${ARGS}\\b(?:node|nodejs|bwrap|nightshift|redis-server|tsx|vitest|chromium|chrome)\\b`,
    'killing processes by name can hit the harness: kill the specific PID you started (e.g. `kill $(cat app.pid)`)',
  ),
  rule(
    `${START}kill(?=\\s)${ARGS}(?:\\$PPID|\\$\\{PPID\\}|\\s-1\\s*(?=$|[;&|])|\\s1\\s*(?=$|[;&|]))`,
    'killing the parent process, pid 1 or every process is not allowed: kill the specific PID you started',
  ),
  rule(
    String.raw`/proc/[^\s/]*/environ`,
    'reading process environments is not allowed (they may hold secrets)',
  ),
  rule(
    `${START}ps\\s+(?:[a-zA-Z]*e[a-zA-Z]*|-[a-zA-Z]*E[a-zA-Z]*)${END}`,
    'showing process environments (ps e) is not allowed (they may hold secrets)',
  ),
  rule(
    String.raw`(?:~|\$HOME|\$\{HOME\}|/root|/home/[^/\s]+)/\.(?:ssh|aws|gnupg|docker|kube|netrc|npmrc|git-credentials|config/gh)\b`,
    'credential files in the home directory are off limits',
  ),
  rule(
    `${START}(?:curl|wget)\\s${ARGS}\\|\\s*(?:sudo\\s+)?(?:ba|da|z|k)?sh\\b`,
    'piping a download into a shell runs unreviewed code: download the file, read it, then run it',
  ),
  rule(
    String.raw`(?:ba|da|z)?sh\s+(?:-c\s+)?["']?(?:<\(|\$\()\s*(?:curl|wget)\b`,
    'running a downloaded script directly is not allowed: download the file, read it, then run it',
  ),
  rule(
    `${START}(?:mkfs(?:\\.\\w+)?|fdisk|parted|wipefs)\\s` +
      `|${START}dd\\s${ARGS}\\bof=/dev/(?!null\\b)` +
      String.raw`|>\s*/dev/(?:sd|nvme|vd|xvd|hd)`,
    'writing to disks or devices is not allowed',
  ),
  rule(
    `${START}(?:shutdown|reboot|halt|poweroff)${END}|${START}init\\s+[06]${END}`,
    'shutting down or rebooting the machine is not allowed',
  ),
  rule(
    `${START}(?:chmod|chown)\\s${ARGS}-[a-zA-Z]*R${ARGS}\\s/${END}`,
    'recursive permission changes on / are not allowed',
  ),
];

/** The default policy (the deny list above). */
export const DEFAULT_POLICY: CommandPolicy = { rules: DEFAULT_DENY_RULES };

/** A policy made of the default rules plus `extra`. */
export function extendPolicy(
  extra: readonly PolicyRule[] = [],
  base: CommandPolicy = DEFAULT_POLICY,
): CommandPolicy {
  return { rules: [...base.rules, ...extra] };
}

/** Checks a command against the deny list; the first matching rule's reason is returned. */
export function checkCommand(command: string, policy: CommandPolicy = DEFAULT_POLICY): PolicyDecision {
  for (const { pattern, reason } of policy.rules) {
    pattern.lastIndex = 0;
    if (pattern.test(command)) return { allowed: false, reason };
  }
  return { allowed: true };
}
