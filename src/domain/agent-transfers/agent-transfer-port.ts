// What an agent's transfer needs from the chain (a port: src/chain/agent-transfer-chain.ts implements it):
// the execute_agent instruction, the wire transaction decoded, and the send itself.
import type { Instruction } from '@solana/kit';

/** One instruction of a signed transaction, with its accounts' roles as compiled. */
export interface RelayedInstruction {
  readonly programAddress: string;
  readonly accounts: readonly { address: string; isSigner: boolean; isWritable: boolean }[];
  readonly data: Uint8Array;
}

/** A wire transaction as the relay judges it. */
export interface RelayedTransaction {
  readonly feePayer: string;
  /** Required signers in message order, each with its signature (null: the slot is empty). */
  readonly signatures: readonly { address: string; signature: string | null; bytes: Uint8Array | null }[];
  /** The exact bytes the signatures sign. */
  readonly messageBytes: Uint8Array;
  readonly instructions: readonly RelayedInstruction[];
}

export interface AgentTransferChain {
  /** execute_agent exactly as the IDL has it; the agent signer's meta is a signer. */
  buildExecuteAgentInstruction(input: {
    vault: string;
    vaultNonce: bigint;
    agentSigner: string;
    depositAddress: string;
    destination: string;
    amount: bigint;
  }): Promise<Instruction>;
  /** The fee treasury PDA (written by every transfer). */
  findTreasuryAddress(): Promise<string>;
  /** A base64 wire transaction (legacy or v0 without lookup tables); null when the bytes are not one. */
  decodeTransaction(base64: string): RelayedTransaction | null;
  /** The vault program's execute_agent arguments of an instruction, null for anything else. */
  decodeExecuteAgent(instruction: RelayedInstruction): { vaultNonce: bigint; amount: bigint } | null;
  /** Whether an instruction is a Compute Budget program instruction. */
  isComputeBudget(instruction: RelayedInstruction): boolean;
  /**
   * sendTransaction with preflight skipped, so a transfer the program blocks still lands and asks the
   * owner. A node that refuses the transaction answers `rejected` with its words; an unreachable one throws.
   */
  sendTransaction(base64: string, signal: AbortSignal): Promise<{ rejected: string | null }>;
}
