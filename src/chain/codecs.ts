import { type Codec, createCodec, transformCodec } from '@solana/kit';
import { getEnumIndex, getEnumValue } from './program.js';

/** Thin wrappers that adapt the codecs generated from the IDL (./generated) to what the service needs. */

/**
 * Kit's bool and Option decoders read any byte or tag (bool byte 2 as false, Option tag 2 as None), while
 * borsh as the program writes it has one encoding per value: a value that does not encode back to the very
 * bytes it was read from is rejected as malformed instead of being misread.
 */
export function getStrictCodec<From, To extends From>(codec: Codec<From, To>): Codec<From, To> {
  return createCodec({
    ...codec,
    read(bytes, offset) {
      const [value, next] = codec.read(bytes, offset);
      const canonical = codec.encode(value);
      const read = bytes.subarray(offset, next);
      if (canonical.length !== read.length || canonical.some((byte, i) => byte !== read[i])) {
        throw new RangeError(`invalid bool byte or option tag at offset ${offset}`);
      }
      return [value, next];
    },
  } as Codec<From, To>);
}

/** `V` with its enum field `K` carried as the enum's API name. */
export type WithEnumName<V, K extends keyof V, T extends string> = Omit<V, K> & { [P in K]: T };

/** The generated codecs carry an enum as its index (a numeric TS enum); the API carries its name. */
export function withEnumName<
  K extends string,
  T extends string,
  From,
  To extends From & { [P in K]: number },
>(codec: Codec<From, To>, key: K, values: readonly T[], enumName: string): Codec<WithEnumName<To, K, T>> {
  return transformCodec(
    codec as unknown as Codec<To>,
    (value: WithEnumName<To, K, T>) =>
      ({ ...value, [key]: getEnumIndex(values, value[key], enumName) }) as unknown as To,
    (value: To) =>
      ({ ...value, [key]: getEnumValue(values, value[key], enumName) }) as WithEnumName<To, K, T>,
  );
}
