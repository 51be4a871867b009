// The embedded data directory holds everything the service keeps (webhook secrets in plain text when
// WEBHOOK_SECRETS_KEY is unset, in the tables and the WAL): only its owner reads it.
import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Group and other bits: none on anything in the data directory. */
const NOT_OWNER = 0o077;

/**
 * Creates the directory 0700, makes everything this process creates from now on owner-only (umask
 * 077: PGlite creates its files later, WAL segments among them), and takes group and other access
 * from what an older version or a copy left readable.
 */
export function secureDataDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  process.umask(process.umask(NOT_OWNER) | NOT_OWNER);
  tighten(dir);
}

function tighten(path: string): void {
  const stat = lstatSync(path);
  if (stat.isSymbolicLink()) return;
  if ((stat.mode & NOT_OWNER) !== 0) chmodSync(path, stat.mode & 0o700);
  if (!stat.isDirectory()) return;
  for (const name of readdirSync(path)) tighten(join(path, name));
}
