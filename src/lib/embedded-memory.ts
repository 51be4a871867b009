// V8 settings for the embedded default (docs/OPERATIONS.md, The embedded default): memory over peak speed.
import { setFlagsFromString } from 'node:v8';

/**
 * What the settings do, each worth 30–45 MB of resident memory on Node 20; on Node 24 the second keeps
 * V8's optimising compile of PostgreSQL's WebAssembly (a peak near 1 GB at start, about 450 MB held
 * after) out of the process. Two spellings, because V8 reads them differently at run time and on the
 * command line.
 */
export const EMBEDDED_V8_FLAGS = {
  /** Set in a running process (Node 20). */
  runTime: [
    // The young generation stays at its initial size (1 MB semi-spaces) instead of growing to 16 MB ones.
    '--semi-space-growth-factor=1',
    // PostgreSQL's WebAssembly runs on baseline (Liftoff) code only: no optimised copies of hot functions.
    '--liftoff-only',
  ],
  /** On the command line (Node 24 ignores the growth factor there and sizes semi-spaces from the heap). */
  commandLine: ['--max-semi-space-size=1', '--liftoff-only'],
} as const;

/** Set in the environment of the process image started with the flags, so it never starts itself again. */
const RESTARTED = 'VAULTKEEPER_V8_FLAGS_APPLIED';

type Execve = (file: string, args: string[], env: NodeJS.ProcessEnv) => never;

/**
 * Applies the embedded V8 settings; call before the process writes anything or opens the database (the
 * WebAssembly is compiled then). Node 20 honours them set at run time. Node 24's V8 does not honour
 * `--liftoff-only` set then, so where the runtime can replace its own image (`process.execve`, Node 22.15
 * and later) the process starts itself again in place, once, with the flags on its command line: the same
 * pid, arguments, environment and open files, so a supervisor sees nothing of it.
 */
export function useEmbeddedMemorySettings(): void {
  const missing = EMBEDDED_V8_FLAGS.commandLine.filter((flag) => !process.execArgv.includes(flag));
  if (missing.length === 0) return;
  const execve = (process as unknown as { execve?: Execve }).execve;
  if (typeof execve === 'function' && process.env[RESTARTED] === undefined) {
    const args = [...missing, ...process.execArgv, ...process.argv.slice(1)];
    execve.call(process, process.execPath, [process.execPath, ...args], { ...process.env, [RESTARTED]: '1' });
  }
  for (const flag of EMBEDDED_V8_FLAGS.runTime) setFlagsFromString(flag);
}
