// Solana Actions 2.4 SignMessageData and the exact text a wallet signs for it (the Sign-In-With-Solana
// layout). One definition for the service, the owner pages and the client; the type is the schema's.
import type { SignMessageData } from '../domain/actions/sign-message-data.js';

export type { SignMessageData };

export function buildSignMessageText(data: SignMessageData): string {
  const fields: string[] = [];
  if (data.chainId) fields.push(`Chain ID: ${data.chainId}`);
  fields.push(`Nonce: ${data.nonce}`, `Issued At: ${data.issuedAt}`);
  return `${data.domain} wants you to sign a message with your account:\n${data.address}\n\n${data.statement}\n\n${fields.join('\n')}`;
}
