// The syntaxes of the service's variable values: pure parsers that push one message per bad value onto
// `problems` and return a safe fallback, so config.ts reports every bad variable at once.

export const DEFAULT_RETRY_SCHEDULE = [5, 300, 1800, 7200, 18000, 36000, 36000];

/** WEBHOOK_SECRETS_KEY(_PREVIOUS): AES-256-GCM keys sealing webhook secrets at rest. */
export interface SecretsKeys {
  current: Buffer;
  previous: Buffer[];
}

export type DatabaseConfig =
  | { kind: 'pglite'; dataDir: string }
  | { kind: 'memory' }
  | { kind: 'postgres'; url: string; poolSize?: number };

/** BACKFILL: how far back a first start reads history. */
export type BackfillConfig = { mode: 'all' } | { mode: 'none' } | { mode: 'count'; count: number };

/** PRIORITY_FEE: `auto` (a percentile of recent fees), `off` (no price instruction) or fixed µlamports per CU. */
export type PriorityFeeMode =
  | { readonly kind: 'auto' }
  | { readonly kind: 'off' }
  | { readonly kind: 'fixed'; readonly microLamports: bigint };

/** A bearer token: long enough not to be guessed, and only characters a header carries as they are. */
export function parseMetricsToken(raw: string | undefined, problems: string[]): string | null {
  if (raw === undefined) return null;
  if (/^[A-Za-z0-9._~+/=-]{24,512}$/.test(raw)) return raw;
  problems.push(
    'METRICS_TOKEN must be 24 to 512 characters of A-Z a-z 0-9 . _ ~ + / = - (e.g. openssl rand -base64 32)',
  );
  return null;
}

export function parsePriorityFee(raw: string | undefined, problems: string[]): PriorityFeeMode {
  if (raw === undefined || raw.toLowerCase() === 'auto') return { kind: 'auto' };
  if (raw.toLowerCase() === 'off') return { kind: 'off' };
  if (/^\d{1,15}$/.test(raw)) return { kind: 'fixed', microLamports: BigInt(raw) };
  problems.push(
    `PRIORITY_FEE must be auto, off or a whole number of micro-lamports per compute unit (got "${raw}")`,
  );
  return { kind: 'auto' };
}

export function parseDatabase(raw: string | undefined, dataDir: string, problems: string[]): DatabaseConfig {
  if (raw === undefined) return { kind: 'pglite', dataDir };
  if (raw === 'memory://') return { kind: 'memory' };
  if (/^postgres(ql)?:\/\//.test(raw)) {
    try {
      new URL(raw);
      return { kind: 'postgres', url: raw };
    } catch {}
  }
  problems.push(
    'DATABASE_URL must be postgres://… (or postgresql://…), memory://, or unset for embedded PGlite',
  );
  return { kind: 'memory' };
}

export function parseSchedule(raw: string | undefined, problems: string[]): number[] {
  if (raw === undefined) return [...DEFAULT_RETRY_SCHEDULE];
  const parts = raw.split(',').map((p) => p.trim());
  if (parts.length === 0 || parts.some((p) => !/^\d+(\.\d+)?$/.test(p))) {
    problems.push('WEBHOOK_RETRY_SCHEDULE must be comma-separated seconds, e.g. 5,300,1800');
    return [...DEFAULT_RETRY_SCHEDULE];
  }
  return parts.map(Number);
}

/** Each key is the base64 (or base64url) text of exactly 32 random bytes; PREVIOUS is a comma list. */
export function parseSecretsKeys(
  current: string | undefined,
  previous: string | undefined,
  problems: string[],
): SecretsKeys | null {
  const decode = (name: string, text: string): Buffer | null => {
    const bytes = /^[A-Za-z0-9+/_-]+={0,2}$/.test(text) ? Buffer.from(text, 'base64') : Buffer.alloc(0);
    if (bytes.length === 32) return bytes;
    problems.push(`${name} must be the base64 of 32 random bytes (e.g. openssl rand -base64 32)`);
    return null;
  };
  if (current === undefined) {
    if (previous !== undefined) problems.push('WEBHOOK_SECRETS_KEY_PREVIOUS needs WEBHOOK_SECRETS_KEY');
    return null;
  }
  const key = decode('WEBHOOK_SECRETS_KEY', current);
  const older = (previous ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter((k) => k !== '')
    .map((k) => decode('WEBHOOK_SECRETS_KEY_PREVIOUS', k));
  if (key === null || older.some((k) => k === null)) return null;
  return { current: key, previous: older as Buffer[] };
}

export function parseBackfill(raw: string | undefined, problems: string[]): BackfillConfig {
  if (raw === undefined || raw === 'all') return { mode: 'all' };
  if (raw === 'none') return { mode: 'none' };
  if (/^\d+$/.test(raw) && Number(raw) > 0) return { mode: 'count', count: Number(raw) };
  problems.push('BACKFILL must be all, none, or a positive signature count');
  return { mode: 'all' };
}

/** Solana convention: the PubSub port is the RPC port + 1 when a port is given. */
export function deriveWsUrl(rpcUrl: string): string {
  const url = new URL(rpcUrl);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  if (url.port !== '') url.port = String(Number(url.port) + 1);
  return url.toString().replace(/\/$/, '');
}
