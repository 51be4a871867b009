// Shapes the decision flows answer with and take in: Solana Actions 2.4, the transport they answer over.
import type { SignMessageData } from './sign-message.js';

export interface LinkedAction {
  type: 'transaction' | 'message';
  label: string;
  href: string;
}
export interface ActionMetadata {
  type: 'action';
  icon: string;
  title: string;
  description: string;
  label: string;
  disabled?: boolean;
  links: { actions: LinkedAction[] };
  error?: { message: string };
}
export type TransactionResponse = {
  type: 'transaction';
  transaction: string;
  message: string;
  /** Action chaining: where the wallet posts the signature once sent. */
  links: { next: { type: 'post'; href: string } };
};
export type PostResponse = { type: 'post'; message: string };
export type SignMessageResponse = {
  type: 'message';
  data: SignMessageData;
  state: string;
  links: { next: { type: 'post'; href: string } };
};
export type CompletedAction = {
  type: 'completed';
  icon: string;
  title: string;
  description: string;
  label: string;
};
export interface DecisionInput {
  account: string;
  /** The wallet proven by wallet-auth headers, or null when none were sent. */
  wallet: string | null;
}
export interface ConfirmRejectInput {
  account: string;
  signature: string;
  data: SignMessageData | string;
  state: string;
}
