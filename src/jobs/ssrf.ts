// Connect-time SSRF guard: resolve the host ourselves, check every address, connect to the checked one.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { buildConnector } from 'undici';
import { refusalReason, unbracketHost } from '../domain/webhooks/address-policy.js';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** DNS as a replaceable network edge (tests inject one to play rebinding and private answers). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((a) => ({
    address: a.address,
    family: a.family === 6 ? 6 : 4,
  }));

/** An attempt refused before any connection was made. */
export class RefusedAddressError extends Error {
  readonly code = 'VK_ADDRESS_REFUSED';
  constructor(message: string) {
    super(message);
    this.name = 'RefusedAddressError';
  }
}

export interface SafeConnectorOptions {
  resolve: Resolver;
  allowPrivate: boolean;
  timeoutMs: number;
  /** The socket-level connector (undici's by default); given only by tests. */
  connect?: buildConnector.connector;
}

/**
 * An undici connector that refuses non-public addresses. Every address the name resolves to must
 * pass (a name mixing public and private answers is refused), and sockets open only to those
 * checked addresses, in order (the next when one cannot be reached), so a second DNS answer can
 * never swap in another target (rebinding).
 */
export function createSafeConnector(options: SafeConnectorOptions): buildConnector.connector {
  const connect = options.connect ?? buildConnector({ timeout: options.timeoutMs });
  return (connectOptions, callback) => {
    const host = unbracketHost(connectOptions.hostname);
    const attempt = (addresses: string[], index: number) =>
      connect({ ...connectOptions, hostname: addresses[index]! }, (error, socket) => {
        if (error !== null && index + 1 < addresses.length) attempt(addresses, index + 1);
        else if (error !== null) callback(error, null);
        else callback(null, socket!);
      });
    resolveChecked(host, options)
      .then((addresses) => attempt(addresses, 0))
      .catch((error: Error) => callback(error, null));
  };
}

async function resolveChecked(host: string, options: SafeConnectorOptions): Promise<string[]> {
  const answers =
    isIP(host) !== 0 ? [host] : await withTimeout(options.resolve(host), options.timeoutMs, host);
  const addresses = answers.map((entry) => (typeof entry === 'string' ? entry : entry.address));
  if (addresses.length === 0) throw dnsError(`${host} resolved to no address`);
  for (const address of addresses) {
    const reason = refusalReason(address, options.allowPrivate);
    if (reason !== null) throw new RefusedAddressError(`refused ${host}: ${reason}`);
  }
  return addresses;
}

const dnsError = (message: string) => Object.assign(new Error(message), { code: 'VK_DNS' });

async function withTimeout<T>(promise: Promise<T>, timeoutMs: number, host: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(dnsError(`DNS lookup of ${host} timed out`)), timeoutMs);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
