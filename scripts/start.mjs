// npm start: build dist/ when it is missing or older than the sources, then run the service.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const newest = (dir) =>
  readdirSync(dir, { withFileTypes: true }).reduce((latest, entry) => {
    const path = join(dir, entry.name);
    const time = entry.isDirectory() ? newest(path) : statSync(path).mtimeMs;
    return Math.max(latest, time);
  }, 0);

const entry = 'dist/main.js';
if (!existsSync(entry) || statSync(entry).mtimeMs < newest('src')) {
  const build = spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
await import(new URL(`../${entry}`, import.meta.url).href);
