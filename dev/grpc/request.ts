// Reads a SubscribeRequest as a Yellowstone server does. Rust clients (prost) leave an empty filter's
// value out of its map entry, which the TypeScript codecs then drop with the entry; the server must
// still see `slots: { name: {} }` and `blocksMeta: { name: {} }`, so those maps' keys are read here.
import { SubscribeRequest } from '@triton-one/yellowstone-grpc';

/** Top-level fields holding maps of empty-able filters: 2 `slots`, 5 `blocks_meta`. */
const EMPTY_FILTER_MAPS = { 2: 'slots', 5: 'blocksMeta' } as const;

function readVarint(bytes: Uint8Array, at: number): [number, number] {
  let value = 0;
  let shift = 0;
  let offset = at;
  for (;;) {
    const byte = bytes[offset++] ?? 0;
    value += (byte & 0x7f) * 2 ** shift;
    if ((byte & 0x80) === 0) return [value, offset];
    shift += 7;
  }
}

/** Offset after a field of this wire type that starts at `at`. */
function skip(bytes: Uint8Array, wireType: number, at: number): number {
  if (wireType === 0) return readVarint(bytes, at)[1];
  if (wireType === 1) return at + 8;
  if (wireType === 5) return at + 4;
  const [length, start] = readVarint(bytes, at);
  return start + length;
}

/** The key (field 1, a string) of a map entry. */
function entryKey(entry: Uint8Array): string | null {
  for (let at = 0; at < entry.length; ) {
    const [tag, next] = readVarint(entry, at);
    if (tag >>> 3 === 1 && (tag & 7) === 2) {
      const [length, start] = readVarint(entry, next);
      return Buffer.from(entry.subarray(start, start + length)).toString('utf8');
    }
    at = skip(entry, tag & 7, next);
  }
  return null;
}

export function decodeSubscribeRequest(bytes: Uint8Array): SubscribeRequest {
  const request = SubscribeRequest.decode(bytes);
  for (let at = 0; at < bytes.length; ) {
    const [tag, next] = readVarint(bytes, at);
    const field = tag >>> 3;
    const map = EMPTY_FILTER_MAPS[field as keyof typeof EMPTY_FILTER_MAPS];
    if (map !== undefined && (tag & 7) === 2) {
      const [length, start] = readVarint(bytes, next);
      const key = entryKey(bytes.subarray(start, start + length));
      if (key !== null) request[map][key] ??= {};
    }
    at = skip(bytes, tag & 7, next);
  }
  return request;
}
