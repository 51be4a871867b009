// The `vaultkeeper` command: start the service, or operate on its database and dependencies.
// Exit codes: 0 done, 1 a check or the work failed, 2 the command line is wrong, 3 the configuration is.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { sql } from 'drizzle-orm';
import { createAppDeps } from '../app-deps.js';
import { createCache } from '../cache/index.js';
import { type Config, ConfigError, loadConfig, readClientEnvironment } from '../config.js';
import type { DeliveryFilter } from '../domain/webhooks/delivery-service.js';
import { createLogger } from '../lib/logger.js';
import { StartError } from '../lib/start-error.js';
import { DataDirLockedError } from '../storage/data-dir-lock.js';
import { createDatabase, type Storage } from '../storage/database.js';
import {
  type ApiAccess,
  createWebhookCommand,
  deleteWebhookCommand,
  listWebhooksThroughApi,
  parseAddress,
  parseWebhookId,
  recoverWebhookCommand,
  resolveApiAccess,
  testWebhookCommand,
  type Values,
} from './api-commands.js';
import { backfillSince, parseSince } from './backfill.js';
import { runDoctor } from './doctor.js';
import { helpFor } from './help.js';
import { parseListenSettings, runListen } from './listen.js';
import { parseMcpUrl, runMcp } from './mcp.js';
import { knownMigrations, readMigrationState } from './migrations.js';
import { listDeliveries, listWebhooks, rebuildMetrics, retryDeliveries } from './operations.js';
import { CliError, createOutput, EXIT, type Output } from './output.js';
import { parseCommandLine } from './parse-command-line.js';

/** The package's version (package.json sits two levels up from src/cli and from dist/cli). */
function version(): string {
  const file = new URL('../../package.json', import.meta.url);
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

function config(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      throw new CliError(error.message, EXIT.config, 'fix the variables named (docs/CONFIGURATION.md)');
    }
    throw error;
  }
}

/** Which database a command acts on, in words: never a silent ./data when a service was meant. */
function describeDatabase(database: Config['database']): string {
  if (database.kind === 'pglite') return `the embedded database in ${resolve(database.dataDir)} (DATA_DIR)`;
  if (database.kind === 'postgres') return `PostgreSQL at ${new URL(database.url).host} (DATABASE_URL)`;
  return 'an in-memory database (nothing is kept)';
}

/** Opens (and migrates) the database; a failure says what to do, a held data directory first. */
async function openDatabase(loaded: Config): Promise<Storage> {
  process.stderr.write(`vaultkeeper: acting on ${describeDatabase(loaded.database)}\n`);
  try {
    return await createDatabase(loaded.database);
  } catch (error) {
    if (error instanceof StartError) throw new CliError(error.message, EXIT.failed, error.hint);
    throw new CliError(`database: ${(error as Error).message}`, EXIT.failed, 'run `vaultkeeper doctor`');
  }
}

/** Runs `work` with the service's dependencies over an open (and migrated) database, then closes it. */
async function withDeps<T>(work: (deps: ReturnType<typeof createAppDeps>) => Promise<T>): Promise<T> {
  const loaded = config();
  const storage = await openDatabase(loaded);
  const cache = createCache(loaded.redisUrl, () => {});
  const logger = createLogger({ level: 'warn', destination: process.stderr });
  try {
    return await work(createAppDeps({ config: loaded, storage, cache, logger }));
  } finally {
    await storage.close();
    await cache.close();
  }
}

async function doctor(out: Output): Promise<number> {
  const checks = await runDoctor();
  out.result({ ok: checks.every((c) => c.ok), checks });
  for (const c of checks) {
    out.line(
      `${c.ok ? 'ok  ' : 'FAIL'} ${c.check.padEnd(8)} ${c.detail}${c.fix === undefined ? '' : ` → ${c.fix}`}`,
    );
  }
  if (checks.some((c) => c.check === 'config' && !c.ok)) return EXIT.config;
  return checks.every((c) => c.ok) ? EXIT.ok : EXIT.failed;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

async function migrate(out: Output): Promise<number> {
  const loaded = config();
  const before = await readMigrationState(loaded.database).catch((error: unknown) => {
    if (error instanceof DataDirLockedError) throw new CliError(error.message, EXIT.failed, error.hint);
    return { applied: 0 };
  });
  const storage = await openDatabase(loaded);
  // Counted on the database just migrated (an in-memory one is gone once it closes).
  let total: number;
  try {
    const [row] = await storage.rows<{ n: number }>(
      sql`select count(*)::int as n from drizzle.__drizzle_migrations`,
    );
    total = Number(row?.n ?? 0);
  } finally {
    await storage.close();
  }
  const result = {
    database: loaded.database.kind,
    applied: total - before.applied,
    total,
    known: knownMigrations(),
  };
  out.result(result);
  out.line(
    `${result.database}: ${plural(result.applied, 'migration')} applied now, ${result.total} of ${result.known} in all`,
  );
  return EXIT.ok;
}

const text = (values: Values, name: string) => {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
};

async function backfill(values: Values, out: Output): Promise<number> {
  const since = parseSince(text(values, 'since'));
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  const result = await withDeps((deps) => backfillSince(deps, since, out, controller.signal));
  out.result(result);
  out.line(
    `backfill: ${result.listed} signatures listed, ${result.applied} applied (after ${result.since ?? 'the first'})`,
  );
  return EXIT.ok;
}

async function listWebhooksCommand(values: Values, out: Output): Promise<number> {
  const owner = parseAddress(text(values, 'owner'), '--owner');
  // A configured service (the demo's owner.env, an operator's shell) is asked, not a data directory.
  const client = readClientEnvironment();
  if (client.apiUrl !== undefined && client.apiKey !== undefined && owner === undefined) {
    return listWebhooksThroughApi(apiAccess(values), out);
  }
  const rows = await withDeps((deps) => listWebhooks(deps.storage, owner));
  out.result({ webhooks: rows });
  for (const w of rows) {
    const state = w.active
      ? w.failingSince === null
        ? 'active'
        : `failing since ${w.failingSince.toISOString()}`
      : `disabled (${w.disabledReason ?? 'by its owner'})`;
    out.line(`${w.id} ${w.owner} ${w.url} [${w.events.join(', ')}] ${state}`);
  }
  if (rows.length === 0) out.line('no subscriptions');
  return EXIT.ok;
}

/** --failed (exhausted) or --failing (last attempt failed, retrying or not); not both. */
function deliverySelection(values: Values): DeliveryFilter | undefined {
  if (values.failed === true && values.failing === true)
    throw new CliError('--failed and --failing exclude each other', EXIT.usage);
  if (values.failing === true) return 'failing';
  return values.failed === true ? 'failed' : undefined;
}

async function listDeliveriesCommand(values: Values, out: Output): Promise<number> {
  const status = deliverySelection(values);
  // Checked before the database opens: a wrong command line is one line, not a database and a line.
  const webhook = text(values, 'webhook');
  if (webhook !== undefined) parseWebhookId(webhook);
  const rows = await withDeps((deps) => listDeliveries(deps.storage, deps.clock, webhook, status));
  out.result({ deliveries: rows });
  for (const d of rows) {
    const last = d.lastStatusCode ?? d.lastError ?? '-';
    out.line(`${d.id} ${d.event} ${d.status} attempts=${d.attemptCount} last=${last} ${d.createdAt}`);
  }
  if (rows.length === 0) out.line('no deliveries');
  return EXIT.ok;
}

async function retryDeliveriesCommand(values: Values, out: Output): Promise<number> {
  const status = deliverySelection(values);
  const webhook = parseWebhookId(text(values, 'webhook'));
  const retried = await withDeps((deps) => retryDeliveries(deps.storage, deps.clock, webhook, status, out));
  out.result({ retried });
  out.line(`${retried.length} deliveries queued to be sent again now`);
  return EXIT.ok;
}

async function rebuildMetricsCommand(values: Values, out: Output): Promise<number> {
  const range = { from: text(values, 'from'), to: text(values, 'to') };
  const result = await withDeps((deps) => rebuildMetrics(deps.storage, range, deps.clock, out));
  out.result(result);
  out.line(`metrics rebuilt from ${result.from} to ${result.to}: ${result.rows} day rows`);
  return EXIT.ok;
}

async function listen(values: Values, out: Output): Promise<number> {
  const settings = parseListenSettings(values);
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  process.once('SIGTERM', () => controller.abort());
  return runListen(settings, apiAccess(values), out, controller.signal);
}

/** The API URL and key of an owner command (PUBLIC_BASE_URL only read when neither flag nor env names one). */
const apiAccess = (values: Values): ApiAccess => {
  const access = resolveApiAccess(values, readClientEnvironment(), () => config().publicBaseUrl);
  process.stderr.write(`vaultkeeper: acting through the service at ${access.baseUrl}\n`);
  return access;
};

const HANDLERS: Readonly<Record<string, (values: Values, out: Output) => Promise<number>>> = {
  start: async () => {
    await import('../main.js');
    return EXIT.ok;
  },
  migrate: (_, out) => migrate(out),
  doctor: (_, out) => doctor(out),
  backfill,
  'metrics rebuild': rebuildMetricsCommand,
  'webhooks list': listWebhooksCommand,
  'webhooks create': (values, out) => createWebhookCommand(values, () => apiAccess(values), out),
  'webhooks test': (values, out) => testWebhookCommand(values, () => apiAccess(values), out),
  'webhooks delete': (values, out) => deleteWebhookCommand(values, () => apiAccess(values), out),
  'webhooks recover': (values, out) => recoverWebhookCommand(values, () => apiAccess(values), out),
  'deliveries list': listDeliveriesCommand,
  'deliveries retry': retryDeliveriesCommand,
  listen,
  mcp: (values) => runMcp(parseMcpUrl(values, readClientEnvironment().apiUrl), version()),
};

function report(error: CliError): number {
  process.stderr.write(
    `vaultkeeper: ${error.message}${error.fix === undefined ? '' : `\n  → ${error.fix}`}\n`,
  );
  return error.exitCode;
}

export async function runCli(argv: string[]): Promise<number> {
  try {
    const parsed = parseCommandLine(argv);
    if (parsed.kind === 'version') {
      process.stdout.write(`vaultkeeper ${version()}\n`);
      return EXIT.ok;
    }
    if (parsed.kind === 'help') {
      process.stdout.write(`${helpFor(parsed.topic)}\n`);
      return EXIT.ok;
    }
    const out = createOutput({ json: parsed.json, stdout: process.stdout, stderr: process.stderr });
    try {
      return await HANDLERS[parsed.command.name]!(parsed.values, out);
    } catch (error) {
      // A wrong value found by the command itself: point at that command's help.
      if (error instanceof CliError && error.exitCode === EXIT.usage && error.fix === undefined) {
        throw new CliError(error.message, EXIT.usage, `see \`vaultkeeper help ${parsed.command.name}\``);
      }
      throw error;
    }
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    return report(error);
  }
}

process.exitCode = await runCli(process.argv.slice(2));
