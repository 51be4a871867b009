// Under npm (`npm start`, `npx vaultkeeper`), npm runs the command in a shell that does not pass a
// SIGTERM on: the service would keep running, orphaned, once npm and its shell are gone. So under npm
// the shell going away is our SIGTERM. (Supervisors run `node dist/main.js` itself: docs/OPERATIONS.md,
// Under a supervisor.)
export function stopWhenNpmShellEnds() {
  if (process.env.npm_lifecycle_event === undefined) return;
  const parent = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(watch);
    process.kill(process.pid, 'SIGTERM');
  }, 250);
  watch.unref();
}
