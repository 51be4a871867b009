// What the approve and reject flows share: their dependencies, built once per service, and how an
// override is found from its address (the Blink's vault, nonce and ?transfer=).
import type { GetGenesisHashApi, Rpc } from '@solana/kit';
import type { ReadCache } from '../../cache/read-cache.js';
import type { Config } from '../../config.js';
import type { Clock } from '../../lib/clock.js';
import type { Database } from '../../storage/database.js';
import type { LandingChain } from '../landing/landing-port.js';
import type { TransactionLanding } from '../landing/transaction-landing.js';
import { overrideNotFound } from '../overrides/override-reads.js';
import { buildBlinkUrl } from '../overrides/override-resource.js';
import { vaultNotFound } from '../vaults/vault-reads.js';
import type { ApprovalLimits } from './approval-limits.js';
import type { ApprovalChain, ApprovalRpc, createApprovalBuilder } from './approve-transaction.js';
import { parseOverrideNonce } from './decision-rules.js';
import { type ActionOverride, findActionOverride } from './decision-store.js';
import type { createStateCodec } from './sign-message.js';

/** Where every Blink's icon is served (the Action transport); completed decisions show it too. */
export const ICON_PATH = '/api/actions/icon.svg';

/** How an override is addressed: its vault and nonce, and the transfer's signature for all but the first. */
export interface ActionAddress {
  vault: string;
  nonce: string;
  transfer?: string | undefined;
}

export interface ApprovalDecisionDeps {
  readonly storage: { readonly db: Database };
  readonly cache: { deleteByTag(...tags: string[]): Promise<void> };
  /** Identical approve previews share one simulation through it (single flight, a few seconds' reuse). */
  readonly readCache: ReadCache;
  readonly clock: Clock;
  readonly logger: { debug(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  readonly metrics: {
    readonly blinkActions: { inc(labels: { action: string }): void };
    /** Refusals of the approval caps count as 429s (categories approval_confirms, approval_simulations). */
    readonly rateLimitRejections: { labels(category: string): { inc(): void } };
  };
  readonly rpc: ApprovalRpc & Rpc<GetGenesisHashApi>;
  readonly config: Pick<
    Config,
    | 'publicBaseUrl'
    | 'cluster'
    | 'programId'
    | 'actionsStateSecret'
    | 'approvalMaxConfirms'
    | 'approvalMaxSimulations'
  >;
  readonly chain: ApprovalChain;
  /** The one pipeline that simulates, budgets and prices every built transaction. */
  readonly landing: TransactionLanding;
  /** Reads the approve transaction a wallet reports having sent (action chaining). */
  readonly landingChain: LandingChain;
  /** How long a confirm waits for the signature to appear (default 10 s). */
  readonly confirmTimeoutMs?: number;
}

/** What the decision flows share, built once per service. */
export interface DecisionContext {
  readonly deps: ApprovalDecisionDeps;
  readonly db: Database;
  readonly baseUrl: string;
  readonly iconUrl: string;
  /** The host a sign-message request names. */
  readonly domain: string;
  readonly stateCodec: ReturnType<typeof createStateCodec>;
  /** The cluster's CAIP-2 id, which a sign-message rejection names (the Action transport provides it). */
  readonly blockchainId: { get(): Promise<string> };
  readonly approvals: ReturnType<typeof createApprovalBuilder>;
  /** The caps on RPC work anonymous callers start (confirms, simulations). */
  readonly limits: ApprovalLimits;
}

export async function load(ctx: DecisionContext, address: ActionAddress): Promise<ActionOverride> {
  const nonce = parseOverrideNonce(address.nonce);
  const found = await findActionOverride(ctx.db, address.vault, nonce, address.transfer);
  if (found.vault === null) throw vaultNotFound(address.vault);
  if (found.override === null) throw overrideNotFound(address.vault, nonce, address.transfer);
  return { vault: found.vault, override: found.override, reason: found.reason };
}

/** The override's Blink URL (its canonical address), or of one of its actions with `action`. */
export function blinkUrlOf(ctx: DecisionContext, t: ActionOverride, action = ''): string {
  const address = { vault: t.vault.address, nonce: t.override.nonce, transfer: t.override.addressSignature };
  return buildBlinkUrl(ctx.baseUrl, address, action);
}
