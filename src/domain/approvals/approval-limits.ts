// How much Solana RPC work anonymous approve calls may start. Previews, approves and confirms need
// no wallet signature (wallets send only `account`, a public address), so beyond the rate budgets each
// client holds only a few at once, every network a share, and the process a configured number.
import { getSlotLimits } from '../../lib/concurrency-slots.js';
import { type ConcurrencyCap, createConcurrencyCap } from '../concurrency-caps.js';

/** Confirms one client address may have waiting for the cluster at once. */
export const CONFIRMS_PER_CLIENT = 2;
/** Previews and approves one client address may have simulating at once. */
export const SIMULATIONS_PER_CLIENT = 2;
/** Identical previews (the same request and account) within this many seconds share one simulation. */
export const PREVIEW_REUSE_SECONDS = 5;

export interface ApprovalLimits {
  /** Approve confirmations polling the cluster (up to 10 s each). */
  readonly confirms: ConcurrencyCap;
  /** Approve previews and approve transactions being read, simulated and priced. */
  readonly simulations: ConcurrencyCap;
}

export function createApprovalLimits(deps: {
  readonly config: { readonly approvalMaxConfirms: number; readonly approvalMaxSimulations: number };
  readonly metrics: { readonly rateLimitRejections: { labels(category: string): { inc(): void } } };
}): ApprovalLimits {
  const refused = (category: string) => {
    const counter = deps.metrics.rateLimitRejections.labels(category);
    return () => counter.inc();
  };
  return {
    confirms: createConcurrencyCap(getSlotLimits(CONFIRMS_PER_CLIENT, deps.config.approvalMaxConfirms), {
      retryAfterSeconds: 2,
      what: 'approval confirmations waiting for the cluster',
      onRefused: refused('approval_confirms'),
    }),
    simulations: createConcurrencyCap(
      getSlotLimits(SIMULATIONS_PER_CLIENT, deps.config.approvalMaxSimulations),
      {
        retryAfterSeconds: 1,
        what: 'approval transactions being simulated',
        onRefused: refused('approval_simulations'),
      },
    ),
  };
}
