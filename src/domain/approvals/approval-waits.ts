// The cap on held approval waits (GET …/approvals/:signature?waitMs=, and the MCP wait_for_approval
// that calls it): each held wait costs memory for as long as it is held, so one client address, one
// network (an IPv4 /24, an IPv6 /48) and the process each hold a bounded number. A client or network
// over its share is answered 429; a full process 503; both with Retry-After.
import type { SlotLimits } from '../../lib/concurrency-slots.js';
import { type ConcurrencyCap, createConcurrencyCap } from '../concurrency-caps.js';

/** What a refused caller is told to wait before trying again (seconds). */
export const APPROVAL_WAIT_RETRY_AFTER_SECONDS = 5;

export interface ApprovalWaitLimits {
  readonly perClient: number;
  readonly perNetwork: number;
  readonly total: number;
}

export function createApprovalWaitCap(
  limits: ApprovalWaitLimits,
  metrics: { readonly rateLimitRejections: { labels(category: string): { inc(): void } } },
): ConcurrencyCap {
  const slots: SlotLimits = {
    perClient: Math.min(limits.perClient, limits.total),
    perNetwork: Math.min(Math.max(limits.perClient, limits.perNetwork), limits.total),
    total: limits.total,
    // The last tenth goes only to networks holding fewer than one client's share.
    reserve: Math.floor(limits.total / 10),
  };
  const refusals = metrics.rateLimitRejections.labels('approval_waits');
  return createConcurrencyCap(slots, {
    retryAfterSeconds: APPROVAL_WAIT_RETRY_AFTER_SECONDS,
    what: 'approval waits held',
    onRefused: () => refusals.inc(),
    fullIsUnavailable: true,
  });
}
