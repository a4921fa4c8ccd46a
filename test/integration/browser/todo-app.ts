import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The fixture app's directory (holds server.js and init.sh). */
export const TODO_APP_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../fixtures/todo-app',
);

/** A running todo fixture app. */
export interface RunningTodoApp {
  url: string;
  origin: string;
  stop(): Promise<void>;
}

/** A TCP port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Starts the fixture through its init.sh on a free port and waits until it answers. */
export async function startTodoApp(env: Record<string, string> = {}): Promise<RunningTodoApp> {
  const port = await freePort();
  const child = spawn(path.join(TODO_APP_DIR, 'init.sh'), [], {
    cwd: TODO_APP_DIR,
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // If the test process ends without stop() (a crash, a timeout), the app must not outlive it.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));
  const origin = `http://127.0.0.1:${port}`;
  await waitUntilListening(child, origin);
  return { url: `${origin}/`, origin, stop: () => stopProcess(child) };
}

async function waitUntilListening(child: ChildProcess, origin: string): Promise<void> {
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  for (let attempt = 0; attempt < 100; attempt += 1) {
    if (child.exitCode !== null) throw new Error(`todo app exited early (${child.exitCode}): ${output}`);
    const ok = await fetch(`${origin}/api/todos`).then(
      (res) => res.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await stopProcess(child);
  throw new Error(`todo app did not answer on ${origin}: ${output}`);
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
