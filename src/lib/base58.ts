// Base58 (Bitcoin alphabet) decoding without BigInt: every authenticated request decodes a signature
// and request validation checks every address parameter, where @solana/kit's decoder (BigInt based)
// costs several microseconds. Encoding stays with @solana/kit's codec.
const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const DIGIT = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DIGIT[ALPHABET.charCodeAt(i)] = i;
/** 58^1..58^5: up to five digits are folded into 16-bit limbs per pass without losing precision. */
const POWERS = [1, 58, 58 ** 2, 58 ** 3, 58 ** 4, 58 ** 5];
const MAX_BASE58_CHARS = 200;
/** Little-endian 16-bit limbs of the number the digits spell; decoding is synchronous, so one serves all. */
const scratch = new Uint32Array(Math.ceil((MAX_BASE58_CHARS * 0.7322) / 2) + 1);

/** Leading zero bytes and significant bytes of the text's number (left in `scratch`), or null. */
function decodeLimbs(text: string): { zeros: number; significant: number } | null {
  if (text.length === 0 || text.length > MAX_BASE58_CHARS) return null;
  let zeros = 0;
  while (zeros < text.length && text.charCodeAt(zeros) === 49 /* '1' */) zeros++;
  let used = 0;
  for (let i = zeros; i < text.length; ) {
    const take = Math.min(5, text.length - i);
    let chunk = 0;
    for (let j = 0; j < take; j++, i++) {
      const code = text.charCodeAt(i);
      const digit = code < 128 ? DIGIT[code]! : -1;
      if (digit < 0) return null;
      chunk = chunk * 58 + digit;
    }
    const multiplier = POWERS[take]!;
    let carry = chunk;
    for (let k = 0; k < used; k++) {
      const value = scratch[k]! * multiplier + carry;
      scratch[k] = value % 65_536;
      carry = Math.floor(value / 65_536);
    }
    while (carry > 0) {
      scratch[used++] = carry % 65_536;
      carry = Math.floor(carry / 65_536);
    }
  }
  let significant = used * 2;
  if (used > 0 && scratch[used - 1]! < 256) significant--;
  return { zeros, significant };
}

/** Decodes base58 text (at most 200 characters) to bytes; null when it is not base58. */
export function decodeBase58(text: string): Uint8Array | null {
  const decoded = decodeLimbs(text);
  if (decoded === null) return null;
  const out = new Uint8Array(decoded.zeros + decoded.significant);
  for (let b = 0; b < decoded.significant; b++) {
    const limb = scratch[b >> 1]!;
    out[out.length - 1 - b] = b & 1 ? limb >> 8 : limb & 0xff;
  }
  return out;
}

/** How many bytes the base58 text decodes to, or null when it is not base58 (or over 128 characters). */
export function base58DecodedLength(text: string): number | null {
  if (text.length > 128) return null;
  const decoded = decodeLimbs(text);
  return decoded === null ? null : decoded.zeros + decoded.significant;
}

/** True for base58 text of a 32-byte public key (what @solana/kit's isAddress accepts). */
export function isBase58Address(text: string): boolean {
  return text.length >= 32 && text.length <= 44 && base58DecodedLength(text) === 32;
}
