// The Clock sysvar: the cluster's own time, which the vault program judges its daily windows by. Its
// account is 40 bytes (slot u64, epoch_start_timestamp i64, epoch u64, leader_schedule_epoch u64,
// unix_timestamp i64), owned by the sysvar program and rewritten every slot.
import {
  type Address,
  address,
  type FixedSizeCodec,
  getI64Codec,
  getStructCodec,
  getU64Codec,
  type ReadonlyUint8Array,
} from '@solana/kit';
import { AccountDecodeError } from './accounts.js';

export const CLOCK_SYSVAR_ADDRESS: Address = address('SysvarC1ock11111111111111111111111111111111');
export const SYSVAR_OWNER_ADDRESS: Address = address('Sysvar1111111111111111111111111111111111111');
export const CLOCK_SYSVAR_SIZE = 40;

export interface ClockSysvar {
  slot: bigint;
  epochStartTimestamp: bigint;
  epoch: bigint;
  leaderScheduleEpoch: bigint;
  /** Unix seconds: the cluster's estimate of the time of `slot`. */
  unixTimestamp: bigint;
}

const clockCodec: FixedSizeCodec<ClockSysvar, ClockSysvar, 40> = getStructCodec([
  ['slot', getU64Codec()],
  ['epochStartTimestamp', getI64Codec()],
  ['epoch', getU64Codec()],
  ['leaderScheduleEpoch', getU64Codec()],
  ['unixTimestamp', getI64Codec()],
]) as FixedSizeCodec<ClockSysvar, ClockSysvar, 40>;

export function encodeClockSysvar(clock: ClockSysvar): Uint8Array {
  return new Uint8Array(clockCodec.encode(clock));
}

/** The Clock from its account; throws AccountDecodeError when the account is not the sysvar's. */
export function parseClockSysvarAccount(account: {
  readonly owner: Address | string;
  readonly data: ReadonlyUint8Array;
}): ClockSysvar {
  if (account.owner !== SYSVAR_OWNER_ADDRESS) {
    throw new AccountDecodeError(
      'ACCOUNT_OWNER_INVALID',
      `Clock sysvar owner ${account.owner} is not the sysvar program`,
    );
  }
  if (account.data.length !== CLOCK_SYSVAR_SIZE) {
    throw new AccountDecodeError(
      'ACCOUNT_SIZE_INVALID',
      `the Clock sysvar must be ${CLOCK_SYSVAR_SIZE} bytes, got ${account.data.length}`,
    );
  }
  return clockCodec.decode(account.data);
}
