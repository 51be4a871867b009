// npm start: build dist/ when it is missing or older than the sources, then run the service.
import { pathToFileURL } from 'node:url';
import { stopWhenNpmShellEnds } from '../bin/npm-shell-watch.mjs';
import { ensureBuilt } from './ensure-built.mjs';

stopWhenNpmShellEnds();

await import(pathToFileURL(ensureBuilt('dist/main.js')).href);
