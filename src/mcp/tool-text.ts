// The one line of text each tool answers beside its structured content, for models that read only
// text: amounts in SOL with lamports where they matter, and what to do next.
import type { Approval, Budget, TransactionList, TransferCheck } from '@vaultkeeper/client';

const LAMPORTS_PER_SOL = 1_000_000_000n;

/** Lamports (decimal text) as exact SOL: `1.5 SOL`, `0.000000001 SOL`. */
export function formatSol(lamports: string): string {
  const value = BigInt(lamports);
  const whole = value / LAMPORTS_PER_SOL;
  const fraction = (value % LAMPORTS_PER_SOL).toString().padStart(9, '0').replace(/0+$/, '');
  return `${whole}${fraction === '' ? '' : `.${fraction}`} SOL`;
}

const solAndLamports = (lamports: string) => `${formatSol(lamports)} (${lamports} lamports)`;

export function budgetText(b: Budget): string {
  if (b.paused)
    return `Vault ${b.vault} is paused: the program refuses every transfer until the owner resumes it.`;
  const window =
    b.resetsAt === null
      ? 'the window has lapsed (the next transfer opens a new one)'
      : `resets at ${b.resetsAt}`;
  const approvals = b.pendingApprovalsTotal === 0 ? '' : `; ${b.pendingApprovalsTotal} approval(s) pending`;
  return `Vault ${b.vault} may send ${formatSol(b.remaining)} more of its ${formatSol(b.dailyLimit)} daily limit (${window}); balance ${formatSol(b.balance)}; largest transfer now ${solAndLamports(b.maxTransfer)} with the fee${approvals}.`;
}

export function checkText(c: TransferCheck): string {
  const what = `${solAndLamports(c.amount)} to ${c.destination} (fee ${formatSol(c.fee)})`;
  if (c.verdict === 'allowed') {
    return `Allowed: ${what} would execute; ${formatSol(c.remainingAfter ?? '0')} would remain today.`;
  }
  if (c.verdict === 'refused')
    return `Refused (${c.reason}): ${what} would fail before the policy runs; do not send it.`;
  const next =
    c.approval === 'possible'
      ? 'sending it asks the owner for an approval: send it only if the owner should decide, then share the approval link and call wait_for_approval'
      : 'the owner cannot approve it (the vault must be funded first): do not send it';
  return `Blocked (${c.reason}): ${what}; ${next}.`;
}

export function transactionsText(
  vault: string,
  list: { transactions: TransactionList['transactions']; total: number },
): string {
  if (list.transactions.length === 0) return `No transactions of vault ${vault} match.`;
  const items = list.transactions
    .map(
      (t) =>
        `${t.status} ${formatSol(t.amount)} to ${t.destination}${t.blockReason ? ` (${t.blockReason})` : ''} at ${t.timestamp}`,
    )
    .join('; ');
  return `${list.transactions.length} of ${list.total} transactions of vault ${vault}, newest first: ${items}.`;
}

export function approvalText(a: Approval): string {
  const what = a.amount === null ? 'the transfer' : `${solAndLamports(a.amount)} to ${a.destination}`;
  switch (a.status) {
    case 'pending':
      return `Pending: ${what} awaits the owner until ${a.expiresAt}; share ${a.approvalUrl} with the owner and call wait_for_approval.`;
    case 'approved':
      return `Approved: the owner let ${what} through; it is being sent.`;
    case 'executed':
      return `Executed: the owner approved and ${what} was sent; do not send it again.`;
    case 'rejected':
      return `Rejected: the owner refused ${what}; do not send it again.`;
    case 'expired':
      return `Expired: ${what} was not decided before ${a.expiresAt}; it can no longer be approved.`;
    default:
      return a.amount === null
        ? 'None: the service has not seen a transfer with this signature in this vault.'
        : `None: ${what} asked for no approval (it was not blocked, or was blocked for funds).`;
  }
}
