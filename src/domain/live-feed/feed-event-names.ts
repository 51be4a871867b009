// The live feed names events as webhooks do: the program's event names mapped onto the one vocabulary.
import { ALERT_EVENTS, type AlertEventName, type FeedEventName } from '@vaultkeeper/webhooks';

/** Every event the vault program emits, by its own name (docs/API.md, Live feed, lists the pairs). */
const FEED_NAME_BY_PROGRAM_EVENT: Readonly<Record<string, FeedEventName>> = {
  VaultCreated: 'vault.created',
  VaultInitialized: 'vault.created',
  TransactionExecuted: 'transaction.executed',
  TransactionBlocked: 'transaction.blocked',
  OverrideCreated: 'override.created',
  OverrideApproved: 'override.approved',
  PolicyUpdated: 'policy.updated',
  AgentSignerUpdated: 'policy.updated',
  WhitelistUpdated: 'policy.updated',
  VaultPaused: 'vault.paused',
  VaultResumed: 'vault.resumed',
  FeeTreasuryInitialized: 'treasury.initialized',
  FeesWithdrawn: 'fees.withdrawn',
};

/** The feed's name for a stored program event; `program.unknown` for one not decoded. */
export function toFeedEventName(programEvent: string): FeedEventName {
  return Object.hasOwn(FEED_NAME_BY_PROGRAM_EVENT, programEvent)
    ? FEED_NAME_BY_PROGRAM_EVENT[programEvent]!
    : 'program.unknown';
}

/** The program's names the feed knows: a test holds them equal to the program's own list. */
export const MAPPED_PROGRAM_EVENTS = Object.keys(FEED_NAME_BY_PROGRAM_EVENT);

/** Events the service derives and stores in alert_events: the alerts and dropped transactions. */
const DERIVED_EVENTS: readonly string[] = [...ALERT_EVENTS, 'transaction.dropped'];

/** An alert's (or a dropped transaction's) feed name is its stored name (the vocabulary's own). */
export function toAlertFeedName(name: string): FeedEventName {
  return DERIVED_EVENTS.includes(name) ? (name as AlertEventName | 'transaction.dropped') : 'program.unknown';
}
