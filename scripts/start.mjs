// npm start: build dist/ when it is missing or older than the sources, then run the service.
import { pathToFileURL } from 'node:url';
import { ensureBuilt } from './ensure-built.mjs';

// npm runs this under `sh -c`, and a SIGTERM to npm ends that shell without passing the signal on:
// the service would keep running, orphaned. So under npm, the shell going away is our SIGTERM.
// (Supervisors should run `node dist/main.js` itself: docs/OPERATIONS.md, Under a supervisor.)
if (process.env.npm_lifecycle_event !== undefined) {
  const parent = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(watch);
    process.kill(process.pid, 'SIGTERM');
  }, 250);
  watch.unref();
}

await import(pathToFileURL(ensureBuilt('dist/main.js')).href);
