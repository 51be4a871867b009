// npm start: build dist/ when it is missing or older than the sources, then run the service.
import { pathToFileURL } from 'node:url';
import { ensureBuilt } from './ensure-built.mjs';

await import(pathToFileURL(ensureBuilt('dist/main.js')).href);
