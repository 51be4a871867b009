import { type Address, address } from '@solana/kit';

/**
 * The Clock sysvar, by which the program judges its daily windows: a 40-byte account owned by the sysvar
 * program and rewritten every slot (slot u64, epoch_start_timestamp i64, epoch u64,
 * leader_schedule_epoch u64, unix_timestamp i64, little-endian).
 */

export const CLOCK_SYSVAR_ADDRESS: Address = address('SysvarC1ock11111111111111111111111111111111');
export const SYSVAR_OWNER_ADDRESS: Address = address('Sysvar1111111111111111111111111111111111111');

export interface ClockSysvar {
  slot: bigint;
  epochStartTimestamp: bigint;
  epoch: bigint;
  leaderScheduleEpoch: bigint;
  /** Unix seconds: the cluster's estimate of the time of `slot`. */
  unixTimestamp: bigint;
}

export function encodeClockSysvar(clock: ClockSysvar): Uint8Array {
  const data = Buffer.alloc(40);
  data.writeBigUInt64LE(clock.slot, 0);
  data.writeBigInt64LE(clock.epochStartTimestamp, 8);
  data.writeBigUInt64LE(clock.epoch, 16);
  data.writeBigUInt64LE(clock.leaderScheduleEpoch, 24);
  data.writeBigInt64LE(clock.unixTimestamp, 32);
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}
