// DEMO_MODE hands the demo owner's private key to the approval page, so the demo must run on a ledger of
// its own (docs/OPERATIONS.md, demo mode). The rule: every RPC endpoint (its HTTP and WebSocket URL) is
// on this machine (a loopback host), and answers a genesis hash that none of the public clusters has. The
// hash each endpoint answers first is pinned; whenever a connection to an endpoint is established again
// the guard asks once more, and a public or changed genesis switches the demo wallet off for good.
import { AppError } from '../../errors.js';
import { StartError } from '../../lib/start-error.js';

/** The genesis hashes of Solana's public clusters (what getGenesisHash answers on each). */
export const PUBLIC_GENESIS_HASHES: Readonly<Record<string, string>> = {
  '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d': 'mainnet-beta',
  EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG: 'devnet',
  '4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NcLQ': 'testnet',
};

const HINT =
  'run the demo on a local validator (npm run demo starts one), or turn DEMO_MODE off: it hands the owner key to the page';

/** What the guard writes to the log (a pino logger fits). */
export interface DemoGuardLog {
  error(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

export interface DemoGuardOptions {
  readonly endpoints: readonly { readonly rpcUrl: string; readonly wsUrl: string }[];
  /** getGenesisHash on exactly this endpoint (no failover). */
  readonly readGenesisHash: (rpcUrl: string) => Promise<string>;
  readonly log: DemoGuardLog;
}

export interface DemoGuard {
  /** The check before anything starts: throws a StartError naming the endpoint and what is wrong. */
  verifyAtStart(): Promise<void>;
  /** Asks the endpoint again (a connection to it was just established); switches the demo off if it moved. */
  recheck(rpcUrl: string): Promise<void>;
  /** Throws 503 SERVICE_UNAVAILABLE unless the demo wallet may be handed out now. */
  assertServing(): Promise<void>;
  /** Why the demo was switched off; null while it is on. */
  offReason(): string | null;
}

/** The host only: RPC URLs carry API keys in their paths and queries. */
const hostOf = (url: string) => new URL(url).host;

function isLoopbackUrl(url: string): boolean {
  const host = new URL(url).hostname.toLowerCase();
  return host === 'localhost' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** What is wrong with an endpoint's ledger (given the hash pinned for it, if any); null when nothing. */
function ledgerProblem(rpcUrl: string, genesisHash: string, pinned: string | undefined): string | null {
  const cluster = PUBLIC_GENESIS_HASHES[genesisHash];
  const at = `the RPC at ${hostOf(rpcUrl)}`;
  if (cluster !== undefined) return `${at} serves ${cluster} (genesis hash ${genesisHash})`;
  if (pinned !== undefined && genesisHash !== pinned) {
    return `${at} now serves another ledger (genesis hash ${genesisHash}, was ${pinned})`;
  }
  return null;
}

export function createDemoGuard({ endpoints, readGenesisHash, log }: DemoGuardOptions): DemoGuard {
  const pinned = new Map<string, string>();
  /** Endpoints whose last re-check got no answer: the wallet waits until they answer again. */
  const unanswered = new Set<string>();
  let off: string | null = null;

  function switchOff(problem: string): void {
    if (off !== null) return;
    off = problem;
    log.error(
      { demoMode: 'off' },
      `DEMO_MODE SWITCHED OFF: ${problem}. The demo wallet is no longer handed out; restart the demo on a local validator`,
    );
  }

  async function verifyAtStart(): Promise<void> {
    for (const { rpcUrl, wsUrl } of endpoints) {
      const remote = [rpcUrl, wsUrl].find((url) => !isLoopbackUrl(url));
      if (remote !== undefined) {
        throw new StartError(
          `DEMO_MODE refused: the RPC endpoint ${hostOf(remote)} is not on this machine (a local ledger listens on 127.0.0.1, ::1 or localhost)`,
          HINT,
        );
      }
      let genesisHash: string;
      try {
        genesisHash = await readGenesisHash(rpcUrl);
      } catch (error) {
        throw new StartError(
          `DEMO_MODE could not ask the RPC at ${hostOf(rpcUrl)} which ledger it serves (getGenesisHash: ${(error as Error).message})`,
          HINT,
        );
      }
      const problem = ledgerProblem(rpcUrl, genesisHash, undefined);
      if (problem !== null) throw new StartError(`DEMO_MODE refused: ${problem}`, HINT);
      pinned.set(rpcUrl, genesisHash);
    }
  }

  async function recheck(rpcUrl: string): Promise<void> {
    if (off !== null || !pinned.has(rpcUrl)) return;
    let genesisHash: string;
    try {
      genesisHash = await readGenesisHash(rpcUrl);
    } catch (error) {
      unanswered.add(rpcUrl);
      log.warn(
        { endpoint: hostOf(rpcUrl), err: (error as Error).message },
        `DEMO_MODE could not re-check which ledger the RPC at ${hostOf(rpcUrl)} serves; the demo wallet waits for its answer`,
      );
      return;
    }
    unanswered.delete(rpcUrl);
    const problem = ledgerProblem(rpcUrl, genesisHash, pinned.get(rpcUrl));
    if (problem !== null) switchOff(problem);
  }

  async function assertServing(): Promise<void> {
    // A process that never ran the start check (an app built in a test) runs it on first use.
    if (off === null && pinned.size < endpoints.length) {
      await verifyAtStart().catch((error: unknown) => switchOff((error as Error).message));
    }
    for (const rpcUrl of [...unanswered]) await recheck(rpcUrl);
    if (off !== null) {
      throw new AppError('SERVICE_UNAVAILABLE', `Demo mode was switched off: ${off}`, { reason: 'demo_off' });
    }
    if (unanswered.size > 0) {
      throw new AppError(
        'SERVICE_UNAVAILABLE',
        'Demo mode cannot confirm that the RPC serves the local ledger',
        {
          reason: 'demo_unconfirmed',
        },
      );
    }
  }

  return { verifyAtStart, recheck, assertServing, offReason: () => off };
}
