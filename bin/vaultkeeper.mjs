#!/usr/bin/env node
// `npx vaultkeeper …` (README, Operator CLI): the compiled CLI, compiled first in a checkout when stale.
import { pathToFileURL } from 'node:url';
import { ensureBuilt } from '../scripts/ensure-built.mjs';

await import(pathToFileURL(ensureBuilt('dist/cli/main.js')).href);
