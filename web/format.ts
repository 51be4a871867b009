// What a person reads: SOL amounts, short addresses, times and durations.
import { formatSol } from '@vaultkeeper/client';

export { formatSol };

/** "1.5 SOL" with thousands separators on the whole part; amounts stay bigint throughout. */
export function sol(lamports: string | bigint): string {
  const [whole = '0', fraction] = formatSol(BigInt(lamports)).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${fraction === undefined ? grouped : `${grouped}.${fraction}`} SOL`;
}

export function lamportsText(lamports: string | bigint): string {
  return `${BigInt(lamports)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',')} lamports`;
}

export function shortAddress(address: string): string {
  return address.length <= 12 ? address : `${address.slice(0, 4)}…${address.slice(-4)}`;
}

// Every time shown names its zone (the reader's own): dateStyle/timeStyle cannot, so the parts are spelled.
const dateTime = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  timeZoneName: 'short',
});
const timeOnly = new Intl.DateTimeFormat(undefined, {
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  timeZoneName: 'short',
});

export function formatDateTime(iso: string): string {
  return dateTime.format(new Date(iso));
}

export function formatTime(iso: string): string {
  return timeOnly.format(new Date(iso));
}

/** "42 min", "1 h 5 min", "35 s". */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest === 0 ? `${hours} h` : `${hours} h ${rest} min`;
}

/** "3 min ago", "just now". */
export function formatAgo(iso: string, now = Date.now()): string {
  const ms = now - new Date(iso).getTime();
  return ms < 5_000 ? 'just now' : `${formatDuration(ms)} ago`;
}

const REASONS: Readonly<Record<string, string>> = {
  not_whitelisted: 'Destination not on the whitelist',
  exceeded_daily_limit: 'Over the daily spending limit',
  insufficient_funds: 'Not enough SOL in the vault',
};

export function describeBlockReason(reason: string | null | undefined): string {
  return (reason ? REASONS[reason] : undefined) ?? 'Requested by the owner';
}

/** The Solana Explorer link of a transaction; none for a local validator. */
export function explorerUrl(signature: string, cluster: string): string | null {
  if (cluster === 'localnet') return null;
  const query = cluster === 'mainnet-beta' ? '' : `?cluster=${encodeURIComponent(cluster)}`;
  return `https://explorer.solana.com/tx/${encodeURIComponent(signature)}${query}`;
}

const SOL_INPUT = /^\s*([0-9]{1,10})(?:[.,]([0-9]{0,9}))?\s*$/;

/** "2.5" (or "2,5") SOL as lamports; null when it is not a plain amount with at most 9 decimals. */
export function parseSol(text: string): bigint | null {
  const match = SOL_INPUT.exec(text);
  if (match === null) return null;
  const [, whole = '0', fraction = ''] = match;
  return BigInt(whole) * 1_000_000_000n + BigInt(fraction.padEnd(9, '0'));
}
