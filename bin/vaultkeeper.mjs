#!/usr/bin/env node
// `vaultkeeper …` (docs/CLI.md). Installed from the npm package, it runs the compiled CLI the
// tarball ships (dist/); in a checkout, it compiles dist/ first when it is missing or stale.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { stopWhenNpmShellEnds } from './npm-shell-watch.mjs';

stopWhenNpmShellEnds();

// Only a checkout has the sources (and scripts/); the published package ships dist/ as built.
const checkout = existsSync(new URL('../src/cli/main.ts', import.meta.url));
const entry = checkout
  ? (await import('../scripts/ensure-built.mjs')).ensureBuilt('dist/cli/main.js')
  : fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
await import(pathToFileURL(entry).href);
