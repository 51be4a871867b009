// Byte encodings the pages need (the client's own, so the bundle carries one of each).

export {
  buildSignMessageText,
  fromBase58,
  type SignMessageData,
  toBase58 as encodeBase58,
} from '@vaultkeeper/client';

export function decodeBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

export function encodeBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}
