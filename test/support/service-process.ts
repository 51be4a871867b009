// Runs the real service (src/main.ts) as a child process, as an operator would.
import { fileURLToPath } from 'node:url';
import { type Exit, spawnForTest, type TestChild } from './child-process.js';

const LISTENING = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/;
const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));

export interface ServiceProcess {
  readonly child: TestChild['child'];
  readonly output: string[];
  /** http://127.0.0.1:<port> once the API listens (null for processes without the api role). */
  baseUrl: string | null;
  /** Resolves with the exit code (or signal) when the process ends. */
  readonly exited: Promise<Exit>;
  stop(signal?: NodeJS.Signals): Promise<Exit>;
}

/**
 * Starts the service; with `waitForListen` (the default) resolves once it listens, within a start-up
 * deadline of `timeoutMs` (90 s) on an idle machine, longer under load. Ended with the test `t`, or
 * with the file's tests.
 */
export async function startService(
  env: Record<string, string>,
  options: { waitForListen?: boolean; timeoutMs?: number; t?: { after(fn: () => unknown): void } } = {},
): Promise<ServiceProcess> {
  const proc = spawnForTest(process.execPath, ['--import', 'tsx', MAIN], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    t: options.t,
  });
  const output: string[] = [];
  const service: ServiceProcess = {
    child: proc.child,
    output,
    baseUrl: null,
    exited: proc.exited,
    stop: (signal) => proc.stop(signal),
  };
  const collect = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line === '') continue;
      output.push(line);
      const match = LISTENING.exec(line);
      if (match && service.baseUrl === null) service.baseUrl = match[1]!;
    }
  };
  proc.child.stdout!.on('data', collect);
  proc.child.stderr!.on('data', collect);
  if (options.waitForListen ?? true) {
    try {
      // A deadline, not a wait: tsx compiles src/ at start, which takes long on a loaded machine.
      const listening = await proc.waitForOutput(LISTENING, 'service listening', options.timeoutMs ?? 90_000);
      service.baseUrl ??= listening[1]!;
    } catch (error) {
      // Never leave the child running: its pipes would keep the test file (and the whole run) alive.
      await service.stop('SIGKILL');
      throw error;
    }
  }
  return service;
}
