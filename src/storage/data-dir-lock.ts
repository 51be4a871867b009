// One process per embedded data directory: PGlite keeps its database in this process's memory and
// writes files another PGlite would overwrite, so a second opener must stop before it touches them.
// The kernel decides who holds it (an advisory lock on the lock file's open file description): the
// lock goes with its holder's last file descriptor however the holder ends (SIGKILL, OOM kill, power
// loss of a network client), before it is even a zombie, and neither a reused pid nor a file naming
// another host can take it over. The file's text only says who holds it, for the error message.
import {
  closeSync,
  fstatSync,
  ftruncateSync,
  openSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { StartError } from '../lib/start-error.js';

export const LOCK_FILE = 'vaultkeeper.lock';

/** fs-native-extensions: fcntl(F_OFD_SETLK) on Linux, flock on macOS, LockFileEx on Windows. */
const { tryLock } = createRequire(import.meta.url)('fs-native-extensions') as {
  tryLock(fd: number): boolean;
};

interface Holder {
  pid: number | null;
  host: string;
  since: string;
}

export class DataDirLockedError extends StartError {
  readonly dir: string;
  /** The holder's pid as its lock file records it (null while it is still writing it). */
  readonly pid: number | null;
  readonly host: string;

  constructor(dir: string, holder: Holder) {
    const who =
      holder.pid === null
        ? 'another process'
        : `process ${holder.pid}${holder.host === hostname() ? '' : ` on ${holder.host}`} (since ${holder.since})`;
    super(
      `the embedded database in ${dir} is in use by ${who}; PGlite allows one process per data directory`,
      'stop that service first, or act through its API (an API key: docs/AUTH.md, API keys); ' +
        'several processes need PostgreSQL (DATABASE_URL)',
    );
    this.name = 'DataDirLockedError';
    this.dir = dir;
    this.pid = holder.pid;
    this.host = holder.host;
  }
}

export interface DataDirLock {
  readonly path: string;
  release(): void;
}

function readHolder(path: string): Holder {
  try {
    const holder = JSON.parse(readFileSync(path, 'utf8')) as Partial<Holder>;
    if (typeof holder.pid === 'number') {
      return { pid: holder.pid, host: String(holder.host ?? '?'), since: String(holder.since ?? '?') };
    }
  } catch {}
  // Empty or half-written: the holder has the lock and is about to say who it is.
  return { pid: null, host: '?', since: '?' };
}

/** True while `fd` is still the file at `path` (a releasing holder unlinks it before letting go). */
function isCurrentFile(fd: number, path: string): boolean {
  try {
    const held = fstatSync(fd);
    const named = statSync(path);
    return held.ino === named.ino && held.dev === named.dev;
  } catch {
    return false;
  }
}

/**
 * Takes the directory's lock for this process's life (released by `release()`, at exit, or by the
 * kernel when the process dies); throws DataDirLockedError while another process (or another open
 * in this one) holds it.
 */
export function acquireDataDirLock(dataDir: string): DataDirLock {
  const dir = resolve(dataDir);
  const path = join(dir, LOCK_FILE);
  // A holder releasing between our open and our lock leaves us locking an unlinked file: open again.
  for (let attempt = 0; attempt < 10; attempt += 1) {
    const fd = openSync(path, 'a+', 0o600);
    let locked = false;
    try {
      locked = tryLock(fd);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    if (!locked) {
      closeSync(fd);
      throw new DataDirLockedError(dir, readHolder(path));
    }
    if (isCurrentFile(fd, path)) return holdLock(fd, path);
    closeSync(fd);
  }
  throw new DataDirLockedError(dir, readHolder(path));
}

function holdLock(fd: number, path: string): DataDirLock {
  const me = JSON.stringify({ pid: process.pid, host: hostname(), since: new Date().toISOString() });
  ftruncateSync(fd, 0);
  writeSync(fd, me, 0);
  let held = true;
  // process.exit() skips close(): tidy the file at exit (after a crash the kernel has released it).
  const onExit = () => release();
  const release = () => {
    if (!held) return;
    held = false;
    process.off('exit', onExit);
    // Unlink while still holding, so that whoever opened this file meanwhile sees it is gone.
    try {
      unlinkSync(path);
    } catch {}
    closeSync(fd);
  };
  process.on('exit', onExit);
  return { path, release };
}
