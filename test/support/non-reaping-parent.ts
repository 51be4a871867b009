// Runs a command under a parent that never reaps it (a shell that execs `sleep`), as late-reaping
// container inits and supervisors do: once killed, the command stays a zombie while the parent lives.
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { spawnForTest } from './child-process.js';
import { waitFor } from './wait.js';

export interface NonReapingParent {
  readonly parent: ChildProcess;
  /** Everything the command wrote to stdout and stderr, line by line. */
  readonly output: string[];
  /** Ends the parent and the command (a zombie child is then reaped by init). */
  stop(): Promise<void>;
}

export function spawnUnderNonReapingParent(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): NonReapingParent {
  const quoted = [command, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
  // Its own process group (as every test child), so that stop() ends the command too.
  const parent = spawnForTest('sh', ['-c', `${quoted} & exec sleep 3600`], { env });
  const output: string[] = [];
  const collect = (chunk: Buffer) => output.push(...chunk.toString('utf8').split('\n').filter(Boolean));
  parent.child.stdout!.on('data', collect);
  parent.child.stderr!.on('data', collect);
  return {
    parent: parent.child,
    output,
    async stop() {
      await parent.stop('SIGKILL');
    },
  };
}

/** The state letter of /proc/<pid>/stat (Z: a zombie), or null once the pid is gone. */
export function processState(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  } catch {
    return null;
  }
}

/** The threads of `pid` still in the kernel's table (a zombie keeps only its leader's entry). */
function threadCount(pid: number): number {
  try {
    return readdirSync(`/proc/${pid}/task`).length;
  } catch {
    return 0;
  }
}

/**
 * SIGKILLs `pid` and waits until it is a zombie that still answers kill(pid, 0): its leader thread
 * shows Z as soon as it exits, and its other threads (the last of which closes its files) are gone.
 */
export async function killToZombie(pid: number): Promise<void> {
  process.kill(pid, 'SIGKILL');
  await waitFor(() => processState(pid) === 'Z' && threadCount(pid) === 1, {
    message: `process ${pid} a zombie`,
  });
  process.kill(pid, 0);
}
