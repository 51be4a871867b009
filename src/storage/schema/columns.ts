import { numeric, timestamp } from 'drizzle-orm/pg-core';

/** u64 lamports: exact numeric(20,0) mapped to bigint, never a JS number. */
export const lamports = (name: string) => numeric(name, { precision: 20, scale: 0, mode: 'bigint' });

/** u64 counters such as nonces, same storage as lamports. */
export const u64 = lamports;

/** timestamptz with millisecond precision, as the API prints it. */
export const timestamptz = (name: string) =>
  timestamp(name, { withTimezone: true, precision: 3, mode: 'date' });
