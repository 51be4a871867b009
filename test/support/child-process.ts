// Every process a test starts goes through here. Each runs in its own process group, and that group is
// ended on every path: when the test that started it ends (with `t`), when the file's tests end (a
// top-level after hook), and when the file's process exits. A child left running would keep the file,
// and the whole run, alive. Start-up deadlines grow with the machine's load.
import { type ChildProcess, spawn } from 'node:child_process';
import { after } from 'node:test';
import { loadFactor } from './load.js';
import { waitFor } from './wait.js';

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface TestChild {
  readonly child: ChildProcess;
  readonly pid: number;
  /** What the process wrote so far: stdout, stderr, and both in the order they arrived. */
  readonly stdout: string;
  readonly stderr: string;
  readonly output: string;
  readonly exited: Promise<Exit>;
  running(): boolean;
  /** Resolves with the first match of `pattern` in the output; fails when the process exits first. */
  waitForOutput(pattern: RegExp, what: string, baseMs?: number): Promise<RegExpExecArray>;
  /** Sends `signal` to the process, waits for its exit (SIGKILL to the group after a deadline), then
   * SIGKILLs whatever it left in its group. */
  stop(signal?: NodeJS.Signals): Promise<Exit>;
}

export interface SpawnForTestOptions {
  cwd?: string;
  /** The whole environment of the child (default: this process's); the run's file marker is added. */
  env?: NodeJS.ProcessEnv;
  /** Text written to stdin, which is then closed (default: no stdin). */
  input?: string;
  /** The test whose end stops the process too (else the file's end does). */
  t?: { after(fn: () => unknown): void };
}

const STOP_DEADLINE_MS = 60_000;
const live = new Set<TestChild>();

/**
 * `baseMs` on a machine whose load average is at most its number of cores, and proportionally more
 * above that: a start under a load of 10 on two cores gets five times the time.
 */
export function startupDeadlineMs(baseMs: number): number {
  return Math.round(baseMs * loadFactor());
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is gone already
  }
}

// The file's tests are done: nothing they started may outlive them.
after(() => Promise.all([...live].map((child) => child.stop('SIGKILL'))));
process.on('exit', () => {
  for (const child of live) killGroup(child.pid, 'SIGKILL');
});

export function spawnForTest(command: string, args: readonly string[], options: SpawnForTestOptions = {}) {
  const env = { ...(options.env ?? process.env) };
  // The runner finds what a file left behind by this marker, whatever environment the test gives.
  if (process.env.VK_TEST_FILE_TOKEN) env.VK_TEST_FILE_TOKEN = process.env.VK_TEST_FILE_TOKEN;
  const child = spawn(command, args, {
    cwd: options.cwd,
    env,
    stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    detached: true,
  });
  if (child.pid === undefined) throw new Error(`${command} did not start`);
  const pid = child.pid;
  if (options.input !== undefined) child.stdin!.end(options.input);
  let stdout = '';
  let stderr = '';
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    output += chunk.toString('utf8');
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
    output += chunk.toString('utf8');
  });
  const exited = new Promise<Exit>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const running = () => child.exitCode === null && child.signalCode === null;
  const handle: TestChild = {
    child,
    pid,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    get output() {
      return output;
    },
    exited,
    running,
    async waitForOutput(pattern, what, baseMs = 30_000) {
      // Ended, and all it wrote read: no match can come any more (waitFor would keep polling an error).
      const over = () => !running() && child.stdout!.closed && child.stderr!.closed;
      const found = await waitFor(() => pattern.exec(output) ?? (over() ? 'exited' : null), {
        timeoutMs: baseMs,
        message: what,
      });
      if (found === 'exited') throw new Error(`${what}: the process exited first:\n${output.slice(-4000)}`);
      return found;
    },
    async stop(signal = 'SIGTERM') {
      if (running()) {
        if (signal === 'SIGKILL') killGroup(pid, signal);
        else child.kill(signal);
      }
      // A process that ignores the signal fails its test (its exit shows SIGKILL), never hangs the run.
      const deadline = setTimeout(() => killGroup(pid, 'SIGKILL'), STOP_DEADLINE_MS);
      try {
        return await exited;
      } finally {
        clearTimeout(deadline);
        killGroup(pid, 'SIGKILL');
        live.delete(handle);
      }
    },
  };
  live.add(handle);
  options.t?.after(() => handle.stop('SIGKILL'));
  return handle;
}

export interface Run extends Exit {
  stdout: string;
  stderr: string;
}

/** Runs a command to its end (execFile's use): its exit and output; anything it left in its group is ended. */
export async function runForTest(
  command: string,
  args: readonly string[],
  options: SpawnForTestOptions = {},
): Promise<Run> {
  const child = spawnForTest(command, args, options);
  const exit = await child.exited;
  await child.stop('SIGKILL');
  // Output can still arrive between the exit and the end of the pipes.
  await Promise.all(
    [child.child.stdout!, child.child.stderr!].map(
      (stream) => new Promise((resolve) => (stream.closed ? resolve(null) : stream.once('close', resolve))),
    ),
  );
  return { ...exit, stdout: child.stdout, stderr: child.stderr };
}
