// A process that takes the data directory's lock (the service's own code) and keeps it until killed;
// refused, it prints the reason and exits 1.
import { acquireDataDirLock, DataDirLockedError } from '../../src/storage/data-dir-lock.js';

try {
  acquireDataDirLock(process.argv[2]!);
} catch (error) {
  if (!(error instanceof DataDirLockedError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
}
process.stdout.write(`locked ${process.pid}\n`);
setInterval(() => {}, 60_000);
