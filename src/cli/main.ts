// The `vaultkeeper` command: start the service, or operate on its database and dependencies.
// Exit codes: 0 done, 1 a check or the work failed, 2 the command line is wrong, 3 the configuration is.
import { parseArgs } from 'node:util';
import { createAppDeps } from '../app-deps.js';
import { createCache } from '../cache/index.js';
import { type Config, ConfigError, loadConfig } from '../config.js';
import { createLogger } from '../lib/logger.js';
import { createDatabase, type Storage } from '../storage/database.js';
import { backfillSince, parseSince } from './backfill.js';
import { runDoctor } from './doctor.js';
import { knownMigrations, readMigrationState } from './migrations.js';
import { listDeliveries, listWebhooks, rebuildMetrics, retryDeliveries } from './operations.js';
import { CliError, createOutput, EXIT, type Output } from './output.js';

const USAGE = `Usage: vaultkeeper <command> [options]

Commands:
  start                                      run the service (ROLES chooses api, ingestor, worker)
  migrate                                    apply the database migrations
  doctor                                     check config, database, Redis, RPC, the program account, SMTP
  backfill --since <signature|date>          apply the program's history from that point to now
  metrics rebuild --from <day> [--to <day>]  rebuild daily metrics from the event log (to: today)
  webhooks list [--owner <address>]          every subscription (never its secret)
  deliveries list --webhook <id> [--failed]  a subscription's deliveries, newest first
  deliveries retry --webhook <id> [--failed] send them again now (only failed ones with --failed)

Options:
  --json     one JSON document on stdout instead of lines (no progress)
  --help     this text

Configuration comes from the environment, as for the service (README, Configuration).
Exit codes: 0 done, 1 a check or the work failed, 2 wrong command line, 3 invalid configuration.`;

const OPTIONS = {
  json: { type: 'boolean' },
  help: { type: 'boolean' },
  since: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  owner: { type: 'string' },
  webhook: { type: 'string' },
  failed: { type: 'boolean' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

function config(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      throw new CliError(error.message, EXIT.config, 'fix the variables named (README, Configuration)');
    }
    throw error;
  }
}

/** Runs `work` with the service's dependencies over an open (and migrated) database, then closes it. */
async function withDeps<T>(work: (deps: ReturnType<typeof createAppDeps>) => Promise<T>): Promise<T> {
  const loaded = config();
  let storage: Storage;
  try {
    storage = await createDatabase(loaded.database);
  } catch (error) {
    throw new CliError(`database: ${(error as Error).message}`, EXIT.failed, 'run `vaultkeeper doctor`');
  }
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
  return checks.every((c) => c.ok) ? EXIT.ok : EXIT.failed;
}

async function migrate(out: Output): Promise<number> {
  const loaded = config();
  const before = await readMigrationState(loaded.database).catch(() => ({ applied: 0 }));
  const storage = await createDatabase(loaded.database);
  await storage.close();
  const after = await readMigrationState(loaded.database);
  const result = {
    database: loaded.database.kind,
    applied: after.applied - before.applied,
    total: after.applied,
    known: knownMigrations(),
  };
  out.result(result);
  out.line(
    `${result.database}: ${result.applied} migrations applied now, ${result.total} of ${result.known} in all`,
  );
  return EXIT.ok;
}

async function backfill(values: Values, out: Output): Promise<number> {
  const since = parseSince(values.since);
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  const result = await withDeps((deps) => backfillSince(deps, since, out, controller.signal));
  out.result(result);
  out.line(
    `backfill: ${result.listed} signatures listed, ${result.applied} applied (after ${result.since ?? 'the first'})`,
  );
  return EXIT.ok;
}

async function webhooksCommand(sub: string | undefined, values: Values, out: Output): Promise<number> {
  if (sub !== 'list') throw new CliError('usage: vaultkeeper webhooks list [--owner <address>]', EXIT.usage);
  const rows = await withDeps((deps) => listWebhooks(deps.storage, values.owner));
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

async function deliveriesCommand(sub: string | undefined, values: Values, out: Output): Promise<number> {
  const failed = values.failed === true;
  if (sub === 'list') {
    const rows = await withDeps((deps) => listDeliveries(deps.storage, deps.clock, values.webhook, failed));
    out.result({ deliveries: rows });
    for (const d of rows) {
      const last = d.lastStatusCode ?? d.lastError ?? '-';
      out.line(`${d.id} ${d.event} ${d.status} attempts=${d.attemptCount} last=${last} ${d.createdAt}`);
    }
    if (rows.length === 0) out.line('no deliveries');
    return EXIT.ok;
  }
  if (sub === 'retry') {
    const retried = await withDeps((deps) =>
      retryDeliveries(deps.storage, deps.clock, values.webhook, failed, out),
    );
    out.result({ retried });
    out.line(`${retried.length} deliveries queued to be sent again now`);
    return EXIT.ok;
  }
  throw new CliError('usage: vaultkeeper deliveries list|retry --webhook <id> [--failed]', EXIT.usage);
}

async function dispatch(words: string[], values: Values, out: Output): Promise<number> {
  const [command, sub, ...rest] = words;
  const extra =
    command === 'metrics' || command === 'webhooks' || command === 'deliveries' ? rest : [sub, ...rest];
  if (extra.some((w) => w !== undefined))
    throw new CliError(`unexpected argument "${extra.find(Boolean)}"`, EXIT.usage);
  switch (command) {
    case 'start':
      await import('../main.js');
      return EXIT.ok;
    case 'migrate':
      return migrate(out);
    case 'doctor':
      return doctor(out);
    case 'backfill':
      return backfill(values, out);
    case 'metrics': {
      if (sub !== 'rebuild')
        throw new CliError('usage: vaultkeeper metrics rebuild --from <day> [--to <day>]', EXIT.usage);
      const result = await withDeps((deps) => rebuildMetrics(deps.storage, values, deps.clock, out));
      out.result(result);
      out.line(`metrics rebuilt from ${result.from} to ${result.to}: ${result.rows} day rows`);
      return EXIT.ok;
    }
    case 'webhooks':
      return webhooksCommand(sub, values, out);
    case 'deliveries':
      return deliveriesCommand(sub, values, out);
    default:
      throw new CliError(
        command === undefined ? 'no command given' : `unknown command "${command}"`,
        EXIT.usage,
      );
  }
}

export async function runCli(argv: string[]): Promise<number> {
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}\n`);
    return EXIT.usage;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return EXIT.ok;
  }
  const out = createOutput({ json: values.json === true, stdout: process.stdout, stderr: process.stderr });
  try {
    return await dispatch(positionals, values, out);
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    process.stderr.write(
      `vaultkeeper: ${error.message}${error.fix === undefined ? '' : `\n  → ${error.fix}`}\n`,
    );
    if (error.exitCode === EXIT.usage) process.stderr.write(`\n${USAGE}\n`);
    return error.exitCode;
  }
}

process.exitCode = await runCli(process.argv.slice(2));
