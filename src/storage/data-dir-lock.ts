// One process per embedded data directory: PGlite keeps its database in this process's memory and
// writes files another PGlite would overwrite, so a second opener must stop before it touches them.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { StartError } from '../lib/start-error.js';

export const LOCK_FILE = 'vaultkeeper.lock';

interface Holder {
  pid: number;
  host: string;
  since: string;
}

export class DataDirLockedError extends StartError {
  readonly dir: string;
  readonly pid: number;

  constructor(dir: string, holder: Holder) {
    super(
      `the embedded database in ${dir} is in use by process ${holder.pid}` +
        `${holder.host === hostname() ? '' : ` on ${holder.host}`} (since ${holder.since}); ` +
        'PGlite allows one process per data directory',
      'stop that service first, or act through its API (an API key: docs/AUTH.md, API keys); ' +
        'several processes need PostgreSQL (DATABASE_URL)',
    );
    this.name = 'DataDirLockedError';
    this.dir = dir;
    this.pid = holder.pid;
  }
}

export interface DataDirLock {
  readonly path: string;
  release(): void;
}

/** True when a process with this pid exists (EPERM: it exists but belongs to another user). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readHolder(path: string): Holder | null {
  try {
    const holder = JSON.parse(readFileSync(path, 'utf8')) as Partial<Holder>;
    if (typeof holder.pid !== 'number') return null;
    return { pid: holder.pid, host: String(holder.host ?? ''), since: String(holder.since ?? '?') };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    // Half-written by a process that died while writing it: nobody holds it.
    return { pid: 0, host: hostname(), since: '?' };
  }
}

/** Creates `path` only if it does not exist; false when it does. */
function createExclusive(path: string, content: string): boolean {
  try {
    writeFileSync(path, content, { flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

const STARTED_AT = Date.now() - process.uptime() * 1000;

/**
 * A lock of a process that no longer runs. Our own pid in a lock written before we started is a
 * previous life of this pid (a container restarted: the service is pid 1 again), so stale too.
 */
function isStale(holder: Holder): boolean {
  if (holder.pid === 0) return true;
  if (holder.pid === process.pid) return Date.parse(holder.since) < STARTED_AT;
  return !isAlive(holder.pid);
}

/**
 * Takes the directory's lock for this process's life (released by `release()` or at exit), taking
 * over the lock of a dead process; throws DataDirLockedError while a live one holds it.
 */
export function acquireDataDirLock(dataDir: string): DataDirLock {
  const dir = resolve(dataDir);
  const path = join(dir, LOCK_FILE);
  const me = JSON.stringify({ pid: process.pid, host: hostname(), since: new Date().toISOString() });
  for (let attempt = 0; attempt < 5; attempt += 1) {
    if (createExclusive(path, me)) return holdLock(path);
    const holder = readHolder(path);
    if (holder === null) continue;
    if (!isStale(holder)) throw new DataDirLockedError(dir, holder);
    takeOverStale(path, holder);
  }
  throw new DataDirLockedError(dir, readHolder(path) ?? { pid: 0, host: hostname(), since: '?' });
}

/**
 * Removes a dead holder's lock under a short guard file, so that of two processes starting together
 * after a crash, one removes the dead lock and the other then finds the live one.
 */
function takeOverStale(path: string, stale: Holder): void {
  const guard = `${path}.takeover`;
  const guardHolder = readHolder(guard);
  if (guardHolder !== null && isStale(guardHolder)) rmSync(guard, { force: true });
  if (!createExclusive(guard, JSON.stringify({ pid: process.pid, host: hostname() }))) return;
  try {
    const current = readHolder(path);
    if (current !== null && current.pid === stale.pid && current.since === stale.since) {
      rmSync(path, { force: true });
    }
  } finally {
    rmSync(guard, { force: true });
  }
}

function holdLock(path: string): DataDirLock {
  let held = true;
  // process.exit() skips close(): the lock still goes with the process (a crash leaves a stale one).
  const onExit = () => release();
  const release = () => {
    if (!held) return;
    held = false;
    process.off('exit', onExit);
    const holder = readHolder(path);
    if (holder?.pid === process.pid) rmSync(path, { force: true });
  };
  process.on('exit', onExit);
  return { path, release };
}
