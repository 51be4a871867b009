// The commands that work on the service's database (and doctor, which checks it with the rest), loaded
// only when one of them runs: help, a usage error or an owner's API command never loads the database.
import { resolve } from 'node:path';
import { sql } from 'drizzle-orm';
import { createAppDeps } from '../app-deps.js';
import { createCache } from '../cache/index.js';
import { type Config, readClientEnvironment } from '../config.js';
import type { DeliveryFilter } from '../domain/webhooks/delivery-service.js';
import { createLogger } from '../lib/logger.js';
import { StartError } from '../lib/start-error.js';
import { DataDirLockedError } from '../storage/data-dir-lock.js';
import { createDatabase, type Storage } from '../storage/database.js';
import { listWebhooksThroughApi, parseAddress, parseWebhookId, text, type Values } from './api-commands.js';
import { backfillSince, parseSince } from './backfill.js';
import { runDoctor } from './doctor.js';
import { apiAccess, config } from './environment.js';
import { knownMigrations, readMigrationState } from './migrations.js';
import { listDeliveries, listWebhooks, rebuildMetrics, retryDeliveries } from './operations.js';
import { CliError, EXIT, type Output } from './output.js';

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

export async function doctor(_: Values, out: Output): Promise<number> {
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

export async function migrate(_: Values, out: Output): Promise<number> {
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

export async function backfill(values: Values, out: Output): Promise<number> {
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

export async function listWebhooksCommand(values: Values, out: Output): Promise<number> {
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

export async function listDeliveriesCommand(values: Values, out: Output): Promise<number> {
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

export async function retryDeliveriesCommand(values: Values, out: Output): Promise<number> {
  const status = deliverySelection(values);
  const webhook = parseWebhookId(text(values, 'webhook'));
  const retried = await withDeps((deps) => retryDeliveries(deps.storage, deps.clock, webhook, status, out));
  out.result({ retried });
  out.line(`${retried.length} deliveries queued to be sent again now`);
  return EXIT.ok;
}

export async function rebuildMetricsCommand(values: Values, out: Output): Promise<number> {
  const range = { from: text(values, 'from'), to: text(values, 'to') };
  const result = await withDeps((deps) => rebuildMetrics(deps.storage, range, deps.clock, out));
  out.result(result);
  out.line(`metrics rebuilt from ${result.from} to ${result.to}: ${result.rows} day rows`);
  return EXIT.ok;
}
