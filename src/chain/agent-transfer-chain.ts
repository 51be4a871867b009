// The agent-transfer port (domain/agent-transfers/agent-transfer-port.ts): execute_agent from the IDL's
// builder, wire transactions decoded, and sendTransaction with preflight skipped.
import { type AccountMeta, type Address, address, createNoopSigner, isSolanaError } from '@solana/kit';
import type {
  AgentTransferChain,
  RelayedTransaction,
} from '../domain/agent-transfers/agent-transfer-port.js';
import { getExecuteAgentInstruction } from './generated/instructions/index.js';
import { decodeInstruction } from './instruction-codecs.js';
import { findTreasuryAddress } from './pdas.js';
import { COMPUTE_BUDGET_PROGRAM_ADDRESS } from './program.js';
import type { SolanaRpc } from './rpc.js';
import { decodeTransactionBase64 } from './solana-transactions.js';

export function createAgentTransferChain(rpc: SolanaRpc, programId: Address): AgentTransferChain {
  // A PDA costs about half a millisecond of CPU to derive; the treasury is a singleton.
  let treasury: Promise<Address> | null = null;
  const getTreasury = () => {
    treasury ??= findTreasuryAddress(programId).then(([found]) => found);
    return treasury;
  };
  return {
    findTreasuryAddress: getTreasury,
    async buildExecuteAgentInstruction(input) {
      const ix = getExecuteAgentInstruction(
        {
          vault: address(input.vault),
          agentSigner: createNoopSigner(address(input.agentSigner)),
          vaultAuthority: address(input.depositAddress),
          destination: address(input.destination),
          feeTreasury: await getTreasury(),
          vaultNonce: input.vaultNonce,
          amount: input.amount,
        },
        { programAddress: programId },
      );
      // The service hands the transaction out unsigned: the metas keep the signer role, not the signer.
      const accounts = ix.accounts.map(({ address: a, role }): AccountMeta => ({ address: a, role }));
      return { programAddress: ix.programAddress, accounts, data: ix.data as Uint8Array };
    },
    decodeTransaction(base64) {
      let decoded: ReturnType<typeof decodeTransactionBase64>;
      try {
        decoded = decodeTransactionBase64(base64);
      } catch {
        return null;
      }
      if (decoded.version === 1) return null;
      const relayed: RelayedTransaction = {
        feePayer: decoded.feePayer,
        signatures: decoded.signatures.map((s, i) => ({
          address: s.address,
          signature: s.signature,
          bytes: decoded.signatureBytes[i] ?? null,
        })),
        messageBytes: decoded.messageBytes,
        instructions: decoded.instructions,
      };
      return relayed;
    },
    decodeExecuteAgent(instruction) {
      if (instruction.programAddress !== programId) return null;
      const decoded = decodeInstruction(instruction.data);
      return decoded?.name === 'execute_agent' ? decoded.args : null;
    },
    isComputeBudget: (instruction) => instruction.programAddress === COMPUTE_BUDGET_PROGRAM_ADDRESS,
    async sendTransaction(base64, signal) {
      try {
        await rpc
          .sendTransaction(base64 as Parameters<SolanaRpc['sendTransaction']>[0], {
            encoding: 'base64',
            skipPreflight: true,
          })
          .send({ abortSignal: signal });
        return { rejected: null };
      } catch (error) {
        // Sent before (a retry of the same signed bytes): its outcome on chain is the answer.
        if (isSolanaError(error) && /already been processed/i.test(error.message)) return { rejected: null };
        // A JSON-RPC error (negative code) is the node's answer about this transaction; others are transport.
        if (isSolanaError(error) && Number((error.context as { __code?: unknown }).__code) < 0) {
          return { rejected: `The RPC node refused the transaction: ${error.message}` };
        }
        throw error;
      }
    },
  };
}
