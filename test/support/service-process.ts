// Runs the real service (src/main.ts) as a child process, as an operator would.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { waitFor } from './wait.js';

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
const STOP_DEADLINE_MS = 60_000;

export interface ServiceProcess {
  readonly child: ChildProcess;
  readonly output: string[];
  /** http://127.0.0.1:<port> once the API listens (null for processes without the api role). */
  baseUrl: string | null;
  /** Resolves with the exit code (or signal) when the process ends. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export async function startService(
  env: Record<string, string>,
  options: { waitForListen?: boolean; timeoutMs?: number } = {},
): Promise<ServiceProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const service: ServiceProcess = {
    child,
    output,
    baseUrl: null,
    exited: new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal }))),
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      // A process that ignores the signal fails the test (its exit shows SIGKILL), never hangs the run.
      const deadline = setTimeout(() => child.kill('SIGKILL'), STOP_DEADLINE_MS);
      try {
        return await service.exited;
      } finally {
        clearTimeout(deadline);
      }
    },
  };
  const collect = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line === '') continue;
      output.push(line);
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(line);
      if (match && service.baseUrl === null) service.baseUrl = match[1]!;
    }
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  if (options.waitForListen ?? true) {
    let exitedEarly = false;
    void service.exited.then(() => {
      exitedEarly = true;
    });
    try {
      await waitFor(
        () => {
          if (exitedEarly) throw new Error(`service exited early:\n${output.join('\n')}`);
          return service.baseUrl;
        },
        // A deadline, not a wait: tsx compiles src/ at start, which takes long on a loaded machine.
        { timeoutMs: options.timeoutMs ?? 90_000, message: 'service listening' },
      );
    } catch (error) {
      // Never leave the child running: its pipes would keep the test file (and the whole run) alive.
      await service.stop('SIGKILL');
      throw error;
    }
  }
  return service;
}
