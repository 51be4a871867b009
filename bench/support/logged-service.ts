// The service as a child process whose JSON log lines are parsed as they arrive, for benchmarks that
// wait on what it logs (ingestion, the embedded footprint), and the setup both use: funded vaults.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Address } from '@solana/kit';
import type { FakeValidator } from '../../dev/validator/index.js';

/** The fields every caller reads; a caller names the others it reads in its own line type. */
export interface LogLine {
  msg?: string;
  applied?: number;
}

export interface LoggedService<L extends LogLine = LogLine> {
  readonly child: ChildProcess;
  /** Every parsed line goes to each listener. */
  readonly listeners: Set<(line: L) => void>;
  /** Resolves with the first line from now on that matches; rejects after timeoutMs. */
  waitForLine(match: (line: L) => boolean, timeoutMs: number): Promise<L>;
}

const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/** Spawns `node <args>`; stderr goes to ours (minus listener-count warnings). Killed when we exit. */
export function startLoggedService<L extends LogLine = LogLine>(
  args: string[],
  options: { cwd: string; env: Record<string, string | undefined> },
): LoggedService<L> {
  const child = spawn(process.execPath, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  const listeners = new Set<(line: L) => void>();
  let partial = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    for (const text of lines) {
      if (!text.startsWith('{')) continue;
      const line = JSON.parse(text) as L;
      for (const listener of listeners) listener(line);
    }
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    if (!text.includes('MaxListeners')) process.stderr.write(text);
  });
  const waitForLine = (match: (line: L) => boolean, timeoutMs: number) =>
    new Promise<L>((resolvePromise, reject) => {
      const timer = setTimeout(() => reject(new Error('timed out waiting for the service')), timeoutMs);
      const listener = (line: L) => {
        if (!match(line)) return;
        clearTimeout(timer);
        listeners.delete(listener);
        resolvePromise(line);
      };
      listeners.add(listener);
    });
  return { child, listeners, waitForLine };
}

/** `count` vaults with a limit no transfer reaches, each holding 1 000 SOL. */
export async function createFundedVaults(
  fake: FakeValidator,
  count: number,
  name: string,
): Promise<Address[]> {
  const vaults: Address[] = [];
  for (let i = 0; i < count; i++) {
    const { vault } = await fake.createVault({ dailyLimit: 10n ** 18n, name: `${name} ${i}` });
    await fake.deposit(vault, 10n ** 12n);
    vaults.push(vault);
  }
  return vaults;
}

/** A process's resident memory in MB now (VmRSS), or its peak so far (VmHWM); 0 once it is gone. */
export function residentMb(pid: number, field: 'VmRSS' | 'VmHWM' = 'VmRSS'): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Math.round(Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024);
  } catch {
    return 0;
  }
}
