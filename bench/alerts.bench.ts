// Alerts benchmark: the ingestion rate with alerts on (three budget thresholds and velocity on every
// vault) against off, in the same run, on the same ledger. The service (ROLES=ingestor) runs as a child
// process on PostgreSQL; the fake validator runs here. Two databases learn the vaults, get their
// settings, then each backfills the same transfers (landed while both were down): off, on, on, off, so
// a machine getting busier during the run does not favour either side.
//   npx tsx bench/alerts.bench.ts [--transactions 8000] [--entry dist|src]
// DATABASE_URL (admin connection; default postgres://postgres@127.0.0.1:5432/test) hosts the databases.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Address } from '@solana/kit';
import pg from 'pg';
import { type FakeValidator, startFakeValidator } from '../dev/validator/index.js';
import { type LogLine, startLoggedService } from './support/logged-service.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    transactions: { type: 'string', default: '8000' },
    entry: { type: 'string', default: 'dist' },
  },
});
const ENTRY = args.entry === 'src' ? 'src' : 'dist';
const TRANSACTIONS = Number(args.transactions);
const VAULTS = 10;
const AMOUNT = 1000n;
const ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const TARGET_RATIO = 0.9;
const SETTINGS = {
  off: { thresholds: [] as number[], window: null, max: null },
  on: { thresholds: [50, 80, 100], window: 60, max: 100 },
};
type Mode = keyof typeof SETTINGS;

const log = (line: string) => process.stdout.write(`${line}\n`);
const dbUrl = (name: string) => {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
};

async function query(url: string, text: string, values: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(text, values);
  } finally {
    await client.end();
  }
}

function startIngestor(env: Record<string, string>) {
  const entry =
    ENTRY === 'dist' ? [join(root, 'dist/main.js')] : ['--import', 'tsx', join(root, 'src/main.ts')];
  return startLoggedService<LogLine & { time?: string }>(entry, {
    cwd: root,
    env: { ...process.env, ROLES: 'ingestor', LOG_LEVEL: 'info', PORT: '0', HOST: '127.0.0.1', ...env },
  });
}
type Service = ReturnType<typeof startIngestor>;

async function stopService(service: Service): Promise<void> {
  if (service.child.exitCode !== null) return;
  service.child.kill('SIGTERM');
  await new Promise((r) => service.child.once('exit', r));
}

/** CPU seconds (user + system) a process has used so far, from /proc (clock ticks of 10 ms). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Ingests what the ledger holds into a database (from its cursor on); answers rate and CPU. */
async function backfill(fake: FakeValidator, database: string) {
  const service = startIngestor({
    DATABASE_URL: dbUrl(database),
    SOLANA_RPC_URL: fake.rpcUrl,
    SOLANA_WS_URL: fake.wsUrl,
  });
  try {
    const timeOf = (line: { time?: string }) => Date.parse(line.time ?? '');
    const locked = await service.waitForLine(
      (l) => l.msg === 'ingestor lock held: this process ingests',
      120_000,
    );
    const cpuAtStart = cpuSeconds(service.child.pid ?? 0);
    const done = await service.waitForLine((l) => l.msg === 'backfill done', 1_800_000);
    const cpu = cpuSeconds(service.child.pid ?? 0) - cpuAtStart;
    const applied = done.applied ?? 0;
    const seconds = (timeOf(done) - timeOf(locked)) / 1000;
    return { applied, seconds, rate: applied / seconds, cpuMsPerTx: (cpu * 1000) / Math.max(1, applied) };
  } finally {
    await stopService(service);
  }
}

async function prepare(fake: FakeValidator, mode: Mode, copy: number): Promise<string> {
  const name = `vk_bench_alerts_${mode}_${copy}`;
  await query(ADMIN_URL, `drop database if exists ${name} with (force)`);
  await query(ADMIN_URL, `create database ${name}`);
  const learned = await backfill(fake, name);
  if (learned.applied < VAULTS) throw new Error(`${name}: the vaults were not ingested`);
  const { thresholds, window, max } = SETTINGS[mode];
  await query(
    dbUrl(name),
    `insert into vault_alert_settings (vault_id, budget_thresholds, velocity_window_seconds,
       velocity_max_transfers, expiry_warning_minutes) select id, $1, $2, $3, 15 from vaults`,
    [thresholds, window, max],
  );
  return name;
}

async function main(): Promise<void> {
  try {
    await query(ADMIN_URL, 'select 1');
  } catch {
    log('skipped: PostgreSQL is not reachable at DATABASE_URL');
    return;
  }
  if (ENTRY === 'dist') {
    spawnSync(
      process.execPath,
      [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
      {
        cwd: root,
      },
    );
  }
  log(`alerts benchmark: ${TRANSACTIONS} transfers over ${VAULTS} vaults, backfilled with alerts off and on`);
  const fake = await startFakeValidator();
  const databases: string[] = [];
  try {
    const perVault = Math.ceil(TRANSACTIONS / VAULTS);
    const vaults: Address[] = [];
    for (let i = 0; i < VAULTS; i++) {
      // A limit the burst reaches: the 50 % and 80 % thresholds are crossed in every vault.
      const { vault } = await fake.createVault({
        dailyLimit: AMOUNT * BigInt(perVault) + 1n,
        name: `Alerts ${i}`,
      });
      vaults.push(vault);
    }
    const order: Mode[] = ['off', 'on', 'on', 'off'];
    for (const [i, mode] of order.entries()) databases.push(await prepare(fake, mode, i));
    for (const vault of vaults)
      await fake.burst(perVault, { vault, amount: AMOUNT, blockEvery: 10, perSlot: 4 });

    const results: Record<Mode, { rate: number; cpu: number }[]> = { off: [], on: [] };
    for (const [i, mode] of order.entries()) {
      const r = await backfill(fake, databases[i]!);
      const alerts = await query(
        dbUrl(databases[i]!),
        'select name, count(*)::int as n from alert_events group by name',
      );
      const counted = alerts.rows
        .map((row: { name: string; n: number }) => `${row.name} ${row.n}`)
        .join(', ');
      log(
        `${mode.padEnd(3)}: ${r.applied} signatures in ${r.seconds.toFixed(1)} s = ${r.rate.toFixed(0)} tx/s, ` +
          `service CPU ${r.cpuMsPerTx.toFixed(3)} ms per event; alerts written: ${counted || 'none'}`,
      );
      results[mode].push({ rate: r.rate, cpu: r.cpuMsPerTx });
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const off = mean(results.off.map((r) => r.rate));
    const on = mean(results.on.map((r) => r.rate));
    const ratio = on / off;
    log(
      `mean: off ${off.toFixed(0)} tx/s (${mean(results.off.map((r) => r.cpu)).toFixed(3)} ms CPU/event), ` +
        `on ${on.toFixed(0)} tx/s (${mean(results.on.map((r) => r.cpu)).toFixed(3)} ms CPU/event)`,
    );
    log(
      `on / off = ${ratio.toFixed(2)}   (target ≥ ${TARGET_RATIO}: ${ratio >= TARGET_RATIO ? 'ok' : 'MISSED'})`,
    );
    log(`machine load average ${loadavg()[0]?.toFixed(1)} on ${availableParallelism()} cores`);
  } finally {
    await fake.close();
    for (const name of databases)
      await query(ADMIN_URL, `drop database if exists ${name} with (force)`).catch(() => {});
  }
}

await main();
process.exit(0);
