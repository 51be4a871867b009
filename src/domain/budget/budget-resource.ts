// The budget and transfer-check resources: their schemas (the API's and the client's), types, and how
// a vault's chain state becomes them through the program's rules (domain/policy/vault-policy.ts).
import { type Static, Type } from 'typebox';
import { Address, Lamports, NullableString, StringEnum, Timestamp } from '../../lib/json-schema.js';
import { OverrideResource } from '../overrides/override-resource.js';
import {
  currentWindow,
  judgeTransfer,
  maxTransfer,
  remainingInWindow,
  spentInWindow,
  type TransferJudgement,
  transferFee,
  type VaultPolicy,
} from '../policy/vault-policy.js';
import { BLOCK_REASONS } from '../transactions/transaction-resource.js';

const Slot = () =>
  Type.Integer({ minimum: 0, description: 'the slot the chain state was read at (confirmed commitment)' });
const AsOf = () =>
  Timestamp("the Clock sysvar's time at that slot: the cluster's clock, which the program judges windows by");

export const Budget = Type.Object(
  {
    vault: Address('the vault address'),
    slot: Slot(),
    asOf: AsOf(),
    paused: Type.Boolean({ description: 'while true the program refuses every transfer' }),
    agentSigner: Address('the only key the program accepts an agent transfer from'),
    dailyLimit: Lamports(),
    spentToday: Lamports('spent in the running window; "0" once it has lapsed'),
    remaining: Lamports('max(0, dailyLimit − spentToday)'),
    windowStart: NullableString({
      format: 'date-time',
      description: 'when the running window opened (last_reset); null when it has lapsed',
    }),
    resetsAt: NullableString({
      format: 'date-time',
      description:
        'windowStart + 24 h, when remaining returns to dailyLimit; null when the window has lapsed (the next transfer opens one)',
    }),
    balance: Lamports('lamports at the deposit address'),
    feeBasisPoints: Type.Integer({
      minimum: 0,
      description: 'the protocol fee on top of each amount: floor(amount × feeBasisPoints / 10 000)',
    }),
    maxTransfer: Lamports(
      'the largest amount that fits both remaining and balance with its fee; "0" while paused',
    ),
    whitelist: Type.Array(Address(), {
      description: 'destinations the agent may pay; empty = any destination',
    }),
    pendingApprovals: Type.Array(OverrideResource, {
      description: 'pending overrides not expired by the Clock, newest first, at most 100',
    }),
    pendingApprovalsTotal: Type.Integer({
      minimum: 0,
      description: 'how many pending, unexpired overrides there are',
    }),
  },
  { title: 'Budget' },
);
export type Budget = Static<typeof Budget>;

export const CHECK_VERDICTS = ['allowed', 'blocked', 'refused'] as const;
const CHECK_REASONS = [...BLOCK_REASONS, 'vault_paused', 'wrong_agent'] as const;

export const TransferCheck = Type.Object(
  {
    vault: Address('the vault address'),
    destination: Address(),
    amount: Lamports(),
    fee: Lamports('the protocol fee the program would add: floor(amount × feeBasisPoints / 10 000)'),
    verdict: StringEnum(CHECK_VERDICTS, {
      description:
        'allowed: the program would execute it; blocked: it would emit TransactionBlocked and fail; refused: it would fail before its policy runs',
    }),
    reason: Type.Unsafe<(typeof CHECK_REASONS)[number] | null>({
      type: ['string', 'null'],
      enum: [...CHECK_REASONS, null],
      description:
        'null when allowed; blocked: not_whitelisted, exceeded_daily_limit or insufficient_funds; refused: wrong_agent or vault_paused',
    }),
    approval: StringEnum(['possible', 'none'] as const, {
      description:
        'possible: the block would ask the owner for an approval (whitelist or limit); none otherwise',
    }),
    remainingAfter: NullableString({
      description: 'lamports the window would have left after it, decimal string; null unless allowed',
    }),
    slot: Slot(),
    asOf: AsOf(),
  },
  { title: 'TransferCheck' },
);
export type TransferCheck = Static<typeof TransferCheck>;

/** A vault as of one slot: its account's rules, its balance and the cluster's time. */
export interface VaultAtSlot {
  readonly vault: string;
  readonly policy: VaultPolicy;
  readonly balance: bigint;
  readonly slot: bigint;
  /** The Clock's unix_timestamp. */
  readonly now: bigint;
}

const isoOf = (unixSeconds: bigint) => new Date(Number(unixSeconds) * 1000).toISOString();

export function toBudget(
  state: VaultAtSlot,
  pending: { overrides: OverrideResource[]; total: number },
): Budget {
  const { policy, now, balance } = state;
  const window = currentWindow(policy.lastReset, now);
  return {
    vault: state.vault,
    slot: Number(state.slot),
    asOf: isoOf(now),
    paused: policy.paused,
    agentSigner: policy.agentSigner,
    dailyLimit: policy.dailyLimit.toString(),
    spentToday: spentInWindow(policy, now).toString(),
    remaining: remainingInWindow(policy, now).toString(),
    windowStart: window === null ? null : isoOf(window.start),
    resetsAt: window === null ? null : isoOf(window.resetsAt),
    balance: balance.toString(),
    feeBasisPoints: policy.feeBasisPoints,
    maxTransfer: maxTransfer(policy, balance, now).toString(),
    whitelist: [...policy.whitelist],
    pendingApprovals: pending.overrides,
    pendingApprovalsTotal: pending.total,
  };
}

export function toTransferCheck(
  state: VaultAtSlot,
  transfer: { destination: string; amount: bigint; agent?: string | undefined },
): TransferCheck {
  const judgement: TransferJudgement = judgeTransfer(state.policy, state.balance, transfer, state.now);
  const allowed = judgement.verdict === 'allowed';
  return {
    vault: state.vault,
    destination: transfer.destination,
    amount: transfer.amount.toString(),
    fee: transferFee(transfer.amount, state.policy.feeBasisPoints).toString(),
    verdict: judgement.verdict,
    reason: judgement.reason,
    approval: judgement.approval,
    remainingAfter: allowed
      ? (remainingInWindow(state.policy, state.now) - transfer.amount).toString()
      : null,
    slot: Number(state.slot),
    asOf: isoOf(state.now),
  };
}
