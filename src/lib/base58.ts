// Base58 (Bitcoin alphabet) length check without BigInt: request validation runs it on every path
// parameter, where @solana/kit's decoder (BigInt based) costs several microseconds.
const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const DIGITS = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i += 1) DIGITS[ALPHABET.charCodeAt(i)] = i;
const MAX_TEXT = 128;
/** Scratch for the decoder: requests are validated one at a time, so one buffer serves them all. */
const scratch = new Uint8Array(MAX_TEXT);

/** How many bytes the base58 text decodes to, or null when it is not base58 (or over 128 characters). */
export function base58DecodedLength(text: string): number | null {
  if (text.length === 0 || text.length > MAX_TEXT) return null;
  const bytes = scratch.fill(0);
  let zeros = 0;
  while (zeros < text.length && text.charCodeAt(zeros) === 49) zeros += 1; // leading '1' = 0x00 byte
  let length = 0;
  for (let i = zeros; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    let carry = code < 128 ? DIGITS[code]! : -1;
    if (carry < 0) return null;
    let j = 0;
    for (; j < length || carry !== 0; j += 1) {
      carry += 58 * bytes[j]!;
      bytes[j] = carry & 0xff;
      carry >>= 8;
    }
    length = j;
  }
  return zeros + length;
}

/** True for base58 text of a 32-byte public key (what @solana/kit's isAddress accepts). */
export function isBase58Address(text: string): boolean {
  return text.length >= 32 && text.length <= 44 && base58DecodedLength(text) === 32;
}
