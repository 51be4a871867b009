// Which peers' X-Forwarded-For is believed (TRUST_PROXY): its values, Fastify's option, and whether a
// bind address lets peers other than the proxy connect.
import { isIP } from 'node:net';

/** false, true (every hop), a hop count, or the proxies' addresses/CIDRs (Fastify trustProxy). */
export type TrustProxy = boolean | number | string[];

/** A hop count trusts only the nearest proxies, so a client cannot pick its own X-Forwarded-For address. */
export function parseTrustProxy(raw: string | undefined, problems: string[]): TrustProxy {
  if (raw === undefined) return false;
  const lower = raw.toLowerCase();
  if (['true', 'yes', 'on'].includes(lower)) return true;
  if (['false', 'no', 'off', '0'].includes(lower)) return false;
  if (/^\d{1,2}$/.test(raw)) return Number(raw);
  const entries = raw.split(',').map((e) => e.trim());
  const valid = (entry: string) => {
    const [ip, bits, ...rest] = entry.split('/');
    const family = isIP(ip ?? '');
    if (family === 0 || rest.length > 0) return false;
    return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
  };
  if (entries.every(valid)) return entries;
  problems.push(
    `TRUST_PROXY must be true, false, a hop count, or comma-separated proxy addresses/CIDRs (got "${raw}")`,
  );
  return false;
}

/** Fastify's trustProxy option: a hop count becomes "trust the nearest n hops" (its types omit numbers). */
export function trustProxyOption(
  value: TrustProxy,
): boolean | string[] | ((address: string, hop: number) => boolean) {
  return typeof value === 'number' ? (_address, hop) => hop < value : value;
}

/** A public bind: every address of the machine, so any direct peer can claim to be the proxy. */
export function isPublicBind(host: string): boolean {
  return ['0.0.0.0', '::', '[::]', ''].includes(host);
}
