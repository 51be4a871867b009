import {
  type Codec,
  combineCodec,
  createDecoder,
  createEncoder,
  type FixedSizeCodec,
  getU8Codec,
  getU64Decoder,
  getU64Encoder,
  transformCodec,
} from '@solana/codecs';
import { getEnumIndex, getEnumValue } from './program.js';

/** Strict borsh pieces shared by events, accounts and instructions. */

/** bool that rejects bytes other than 0/1 (kit's boolean decoder reads any non-1 byte as false). */
export function getStrictBooleanCodec(): FixedSizeCodec<boolean, boolean, 1> {
  return transformCodec(
    getU8Codec(),
    (value: boolean) => (value ? 1 : 0),
    (byte: number) => {
      if (byte > 1) throw new RangeError(`invalid bool byte ${byte}`);
      return byte === 1;
    },
  );
}

/** u8 enum carried as its API string; an unknown index fails the decode. */
export function getU8EnumCodec<T extends string>(
  values: readonly T[],
  enumName: string,
): FixedSizeCodec<T, T, 1> {
  return transformCodec(
    getU8Codec(),
    (value: T) => getEnumIndex(values, value, enumName),
    (index: number) => getEnumValue(values, index, enumName),
  );
}

/** Option<u64> as borsh writes it (tag 0 None / 1 Some); kit's nullable codec accepts any tag. */
export function getOptionalU64Codec(): Codec<bigint | number | null, bigint | null> {
  const u64Encoder = getU64Encoder();
  const u64Decoder = getU64Decoder();
  const encoder = createEncoder<bigint | number | null>({
    getSizeFromValue: (value) => (value === null ? 1 : 9),
    write(value, bytes, offset) {
      bytes[offset] = value === null ? 0 : 1;
      return value === null ? offset + 1 : u64Encoder.write(value, bytes, offset + 1);
    },
  });
  const decoder = createDecoder<bigint | null>({
    read(bytes, offset) {
      const tag = bytes[offset];
      if (tag === 0) return [null, offset + 1];
      if (tag !== 1) throw new RangeError(`invalid option tag ${String(tag)}`);
      return u64Decoder.read(bytes, offset + 1);
    },
  });
  return combineCodec(encoder, decoder);
}
