// Byte encodings the pages need, without pulling a Solana SDK into the bundle.
/** Solana Actions SignMessageData: what the wallet is asked to sign when rejecting. */
export interface SignMessageData {
  domain: string;
  address: string;
  statement: string;
  nonce: string;
  issuedAt: string;
  chainId?: string;
}

const BASE58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

export function encodeBase58(bytes: Uint8Array): string {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  let out = '';
  while (value > 0n) {
    out = BASE58_ALPHABET[Number(value % 58n)] + out;
    value /= 58n;
  }
  return '1'.repeat(zeros) + out;
}

export function decodeBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** The text a wallet signs for SignMessageData (Solana Actions 2.4, the Sign-In-With-Solana layout). */
export function buildSignMessageText(data: SignMessageData): string {
  const fields: string[] = [];
  if (data.chainId) fields.push(`Chain ID: ${data.chainId}`);
  fields.push(`Nonce: ${data.nonce}`, `Issued At: ${data.issuedAt}`);
  return `${data.domain} wants you to sign a message with your account:\n${data.address}\n\n${data.statement}\n\n${fields.join('\n')}`;
}
