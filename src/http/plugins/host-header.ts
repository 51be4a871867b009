// A request whose Host header is not a host (`a b`, `xn--`, `x/y`) is answered 400 in the error
// envelope before any route runs (RFC 9112 §3.2: a server must refuse an invalid Host with 400), so no
// route ever builds a URL or a signed-message domain from text that is not one.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { validationError } from '../../errors.js';

/** A reg-name or IPv4 address, or a bracketed IPv6 address, then an optional port. */
const HOST = /^(?:[A-Za-z0-9._~!$&'()*+,;=%-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/;

// RFC 3492's parameters for IDNA.
const BASE = 36;
const T_MIN = 1;
const T_MAX = 26;
const SKEW = 38;
const DAMP = 700;

function adapt(delta: number, points: number, first: boolean): number {
  let d = first ? Math.floor(delta / DAMP) : delta >> 1;
  d += Math.floor(d / points);
  let k = 0;
  while (d > ((BASE - T_MIN) * T_MAX) >> 1) {
    d = Math.floor(d / (BASE - T_MIN));
    k += BASE;
  }
  return k + Math.floor(((BASE - T_MIN + 1) * d) / (d + SKEW));
}

function digitOf(char: string): number {
  const c = char.charCodeAt(0);
  if (c >= 0x30 && c <= 0x39) return c - 0x30 + 26;
  if (c >= 0x61 && c <= 0x7a) return c - 0x61;
  if (c >= 0x41 && c <= 0x5a) return c - 0x41;
  return -1;
}

/**
 * The code points a punycode label (the part after `xn--`) decodes to (RFC 3492 §6.2), or null when it
 * does not decode. Written out rather than taken from the runtime's URL parser: Node 20 refuses `xn--`
 * and Node 24 accepts it, and the answer to a request must not depend on the runtime.
 */
export function decodePunycode(label: string): number[] | null {
  const split = label.lastIndexOf('-');
  const output = split > 0 ? [...label.slice(0, split)].map((c) => c.charCodeAt(0)) : [];
  let n = 0x80;
  let bias = 72;
  let i = 0;
  let pos = split > 0 ? split + 1 : 0;
  while (pos < label.length) {
    const before = i;
    let weight = 1;
    for (let k = BASE; ; k += BASE) {
      if (pos >= label.length) return null;
      const digit = digitOf(label[pos++]!);
      if (digit < 0) return null;
      i += digit * weight;
      const t = k <= bias ? T_MIN : k >= bias + T_MAX ? T_MAX : k - bias;
      if (digit < t) break;
      weight *= BASE - t;
      if (i > 0x10ffff * (output.length + 1)) return null;
    }
    bias = adapt(i - before, output.length + 1, before === 0);
    n += Math.floor(i / (output.length + 1));
    i %= output.length + 1;
    if (n > 0x10ffff || (n >= 0xd800 && n <= 0xdfff)) return null;
    output.splice(i++, 0, n);
  }
  return output;
}

/**
 * True for a Host header a URL can carry: an `xn--` label must decode to a name with a non-ASCII letter
 * and no control character.
 */
export function isValidHost(host: string): boolean {
  if (!HOST.test(host)) return false;
  if (host.startsWith('[')) return true;
  const name = host.replace(/:[0-9]{1,5}$/, '');
  return name.split('.').every((label) => {
    if (!/^xn--/i.test(label)) return true;
    const decoded = decodePunycode(label.slice(4).toLowerCase());
    if (decoded === null) return false;
    return decoded.some((c) => c >= 0x80) && decoded.every((c) => c > 0x20 && (c < 0x7f || c > 0x9f));
  });
}

export const hostHeaderPlugin = fp(
  async (app: FastifyInstance) => {
    // A callback hook: every request runs it.
    app.addHook('onRequest', (request, _reply, done) => {
      const host = request.headers.host;
      if (host === undefined || host === '' || isValidHost(host)) return done();
      done(validationError([{ path: 'headers.host', message: 'is not a valid host' }]));
    });
  },
  { name: 'vaultkeeper-host-header' },
);
