// The approve flow's chain port (domain/approvals/approve-transaction.ts): the program's PDAs, account
// codecs and instruction builders the approval transaction is made of.
import type { ApprovalChain } from '../domain/approvals/approve-transaction.js';
import { decodePendingOverride, parseVaultConfigAccount } from './accounts.js';
import {
  buildApproveOverrideInstruction,
  buildCreateOverrideInstruction,
  buildExecuteApprovedOverrideInstruction,
} from './instructions.js';
import { findPendingOverrideAddress, findTreasuryAddress } from './pdas.js';

export const approvalChain: ApprovalChain = {
  findPendingOverrideAddress,
  findTreasuryAddress,
  decodePendingOverride,
  parseVaultConfigAccount,
  buildCreateOverrideInstruction,
  buildApproveOverrideInstruction,
  buildExecuteApprovedOverrideInstruction,
};
