// The policy preview under load: many client addresses each sending a policy preview at its analytics budget
// while another client reads, as a user of a busy public vault would. Reports that reader's latency and
// the CPU each preview costs this process (the app and, embedded, the database itself).
import { clientPool, fromClient } from './client-pool.js';

export interface PreviewLoadOptions {
  readonly baseUrl: string;
  /** The vault both the previews and the reads are about. */
  readonly vault: string;
  /** Client addresses sending previews, each one every `intervalMs`. */
  readonly senders: number;
  readonly intervalMs: number;
  readonly seconds: number;
  /** The reader's pace: one read every `readEveryMs`. */
  readonly readEveryMs: number;
  /** A fresh proposal each time, so no two previews ask the same question. */
  readonly body: () => object;
}

export interface PreviewLoadFigures {
  readonly reads: number;
  readonly readP50: number;
  readonly readP95: number;
  readonly readProblems: number;
  readonly previews: number;
  /** Previews answered 200; the others are counted by status. */
  readonly previewStatuses: Record<number, number>;
  readonly previewP50: number;
  readonly previewP95: number;
  /** Process CPU over the phase, in ms. */
  readonly cpuMs: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0
    ? Number.NaN
    : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One client reading the vault's newest transactions every `readEveryMs`, until `until`. */
async function runReader(options: PreviewLoadOptions, until: number, times: number[]): Promise<number> {
  const pool = clientPool('read', { rate: 1000 / options.readEveryMs, seconds: options.seconds });
  let problems = 0;
  while (performance.now() < until) {
    const started = performance.now();
    const response = await fetch(`${options.baseUrl}/api/transactions?vault=${options.vault}&limit=20`, {
      headers: fromClient(pool),
    });
    const text = await response.text();
    times.push(performance.now() - started);
    if (response.status !== 200) {
      if (problems === 0)
        process.stdout.write(`  first read problem: ${response.status} ${text.slice(0, 300)}\n`);
      problems += 1;
    }
    await sleep(Math.max(0, options.readEveryMs - (performance.now() - started)));
  }
  return problems;
}

/** One client address sending a preview every `intervalMs` (its own budget), starting after `offsetMs`. */
async function runSender(
  options: PreviewLoadOptions,
  address: string,
  offsetMs: number,
  until: number,
  record: (status: number, ms: number) => void,
): Promise<void> {
  await sleep(offsetMs);
  let next = performance.now();
  const inFlight: Promise<void>[] = [];
  while (next < until) {
    const started = performance.now();
    inFlight.push(
      fetch(`${options.baseUrl}/api/vaults/${options.vault}/policy-preview`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
        body: JSON.stringify(options.body()),
      }).then(async (response) => {
        await response.arrayBuffer();
        record(response.status, performance.now() - started);
      }),
    );
    next += options.intervalMs;
    await sleep(Math.max(0, next - performance.now()));
  }
  await Promise.all(inFlight);
}

export async function runPreviewLoad(options: PreviewLoadOptions): Promise<PreviewLoadFigures> {
  // Each sender an address of its own (a fresh pool of one), spending exactly its analytics budget.
  const addresses = Array.from({ length: options.senders }, () =>
    clientPool('analytics', { requests: 1 }).next(),
  );
  const readTimes: number[] = [];
  const previewTimes: number[] = [];
  const previewStatuses: Record<number, number> = {};
  const cpuBefore = process.cpuUsage();
  const until = performance.now() + options.seconds * 1000;
  const record = (status: number, ms: number) => {
    previewStatuses[status] = (previewStatuses[status] ?? 0) + 1;
    if (status === 200) previewTimes.push(ms);
  };
  const [readProblems] = await Promise.all([
    runReader(options, until, readTimes),
    ...addresses.map((address, i) =>
      runSender(options, address, (i * options.intervalMs) / options.senders, until, record),
    ),
  ]);
  const cpu = process.cpuUsage(cpuBefore);
  readTimes.sort((a, b) => a - b);
  previewTimes.sort((a, b) => a - b);
  return {
    reads: readTimes.length,
    readP50: percentile(readTimes, 50),
    readP95: percentile(readTimes, 95),
    readProblems,
    previews: Object.values(previewStatuses).reduce((a, b) => a + b, 0),
    previewStatuses,
    previewP50: percentile(previewTimes, 50),
    previewP95: percentile(previewTimes, 95),
    cpuMs: (cpu.user + cpu.system) / 1000,
  };
}
