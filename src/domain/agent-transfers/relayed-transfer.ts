// What the relay accepts: one execute_agent of this vault, signed by the vault's agent signer (its only
// signer and fee payer), beside nothing but Compute Budget instructions. Anything else is 400 naming why,
// before anything is sent.
import { AppError } from '../../errors.js';
import { verifyEd25519 } from '../../lib/ed25519.js';
import type { AgentTransferChain, RelayedTransaction } from './agent-transfer-port.js';

/** The transfer a relayed transaction makes, once it passed every check. */
export interface RelayedTransfer {
  readonly signature: string;
  readonly agent: string;
  readonly destination: string;
  readonly amount: bigint;
}

/** execute_agent's accounts by position (the IDL's order). */
const VAULT = 0;
const AGENT_SIGNER = 1;
const DESTINATION = 3;

function refuse(message: string): AppError {
  return new AppError('VALIDATION_ERROR', `transaction: ${message}`, {
    issues: [{ path: 'body.transaction', message }],
  });
}

/** The structure alone (no chain read): which transfer it is, whose signature it needs. */
export function parseRelayedTransfer(
  chain: AgentTransferChain,
  vault: string,
  base64: string,
): { transaction: RelayedTransaction; agent: string; destination: string; amount: bigint } {
  const transaction = chain.decodeTransaction(base64);
  if (transaction === null) throw refuse('is not a base64 Solana wire transaction');
  const others = transaction.instructions.filter((ix) => !chain.isComputeBudget(ix));
  if (others.length !== 1) {
    throw refuse(
      `must hold exactly one execute_agent beside Compute Budget instructions; it holds ${others.length} other instructions`,
    );
  }
  const [transfer] = others as [(typeof others)[number]];
  const args = chain.decodeExecuteAgent(transfer);
  if (args === null) throw refuse("its instruction is not the vault program's execute_agent");
  const account = (i: number) => transfer.accounts[i]?.address ?? '';
  if (account(VAULT) !== vault) {
    throw refuse(`its execute_agent spends from ${account(VAULT) || 'no vault'}, not from ${vault}`);
  }
  return {
    transaction,
    agent: account(AGENT_SIGNER),
    destination: account(DESTINATION),
    amount: args.amount,
  };
}

/** The signer checks against the vault's agent signer as the chain has it; answers the transfer. */
export async function assertSignedByAgent(
  parsed: ReturnType<typeof parseRelayedTransfer>,
  agentSigner: string,
): Promise<RelayedTransfer> {
  const { transaction, agent } = parsed;
  if (agent !== agentSigner) {
    throw refuse(
      `its execute_agent names ${agent} as the signer; the vault's agent signer is ${agentSigner}`,
    );
  }
  const signers = transaction.signatures;
  if (signers.length !== 1 || transaction.feePayer !== agentSigner) {
    throw refuse(
      `must be paid and signed by the vault's agent signer ${agentSigner} alone; it needs ${signers.map((s) => s.address).join(', ')}`,
    );
  }
  const [only] = signers as [(typeof signers)[number]];
  if (only.bytes === null || only.signature === null) throw refuse('is not signed');
  if (!(await verifyEd25519(agentSigner, transaction.messageBytes, only.bytes))) {
    throw refuse(`its signature is not the agent signer's (${agentSigner}) signature of this message`);
  }
  return { signature: only.signature, agent, destination: parsed.destination, amount: parsed.amount };
}
