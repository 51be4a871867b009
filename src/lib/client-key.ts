// The key a client is counted under (rate limits, stream caps, logs), from its address text in one pass
// over the characters: an IPv4 address as it is, an IPv4-mapped IPv6 address as its IPv4 address, any
// other IPv6 address as its subnet (one household or host often holds a whole /64), and anything that
// is not an address under one shared key. No general address library runs per request.

/** The key of every text that is not an IP address (a forged X-Forwarded-For entry, a closed socket). */
export const INVALID_CLIENT_KEY = 'invalid';
/** IPv6 clients are grouped by this many leading bits unless CLIENT_IPV6_PREFIX says otherwise. */
export const DEFAULT_CLIENT_IPV6_PREFIX = 64;

const COLON = 58;
const DOT = 46;
const MAPPED = '::ffff:';

// One scratch array: a key is computed synchronously, one at a time.
const groups = new Uint16Array(8);

/** The value of one hex digit (either case), or -1. */
function hexDigit(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  const lower = code | 32;
  if (lower >= 97 && lower <= 102) return lower - 87;
  return -1;
}

/** text[start, end) as a dotted-quad IPv4 address (no leading zeros, as Node's net.isIPv4), or -1. */
export function parseIPv4(text: string, start: number, end: number): number {
  let result = 0;
  let value = 0;
  let digits = 0;
  let dots = 0;
  for (let i = start; i < end; i++) {
    const code = text.charCodeAt(i);
    if (code === DOT) {
      if (digits === 0 || dots === 3) return -1;
      result = result * 256 + value;
      dots += 1;
      value = 0;
      digits = 0;
      continue;
    }
    if (code < 48 || code > 57 || (digits > 0 && value === 0)) return -1;
    value = value * 10 + (code - 48);
    if (value > 255) return -1;
    digits += 1;
  }
  if (digits === 0 || dots !== 3) return -1;
  return result * 256 + value;
}

/**
 * Fills `groups` with the eight 16-bit groups of text[0, end): full, compressed (`::`), with an IPv4
 * tail (`::ffff:192.0.2.1`), hex digits in either case. False when it is not an IPv6 address.
 */
function parseIPv6(text: string, end: number): boolean {
  let count = 0;
  let gap = -1;
  let i = 0;
  if (text.charCodeAt(0) === COLON) {
    if (text.charCodeAt(1) !== COLON) return false;
    gap = 0;
    i = 2;
  }
  while (i < end) {
    let value = 0;
    let j = i;
    for (
      let digit = hexDigit(text.charCodeAt(j));
      digit >= 0 && j < end;
      digit = hexDigit(text.charCodeAt(j))
    ) {
      value = value * 16 + digit;
      j += 1;
    }
    if (j < end && text.charCodeAt(j) === DOT) {
      // An IPv4 tail: the last two groups.
      const v4 = count <= 6 ? parseIPv4(text, i, end) : -1;
      if (v4 < 0) return false;
      groups[count++] = v4 >>> 16;
      groups[count++] = v4 & 0xffff;
      break;
    }
    if (j === i || j - i > 4 || count === 8) return false;
    groups[count++] = value;
    i = j;
    if (i === end) break;
    if (text.charCodeAt(i) !== COLON || i + 1 === end) return false;
    i += 1;
    if (text.charCodeAt(i) === COLON) {
      if (gap >= 0) return false;
      gap = count;
      i += 1;
    }
  }
  if (gap < 0) return count === 8;
  // `::` stands for at least one zero group: move the groups after it to the end.
  if (count > 7) return false;
  const moved = count - gap;
  for (let k = 1; k <= moved; k++) groups[8 - k] = groups[count - k]!;
  for (let k = gap; k < 8 - moved; k++) groups[k] = 0;
  return true;
}

/** The groups as RFC 5952 text: lowercase, no leading zeros, the longest run of 2+ zero groups as `::`. */
function formatIPv6(): string {
  let bestStart = -1;
  let bestLength = 1;
  for (let k = 0; k < 8; ) {
    if (groups[k] !== 0) {
      k += 1;
      continue;
    }
    let run = k;
    while (run < 8 && groups[run] === 0) run += 1;
    if (run - k > bestLength) {
      bestStart = k;
      bestLength = run - k;
    }
    k = run;
  }
  let text = '';
  for (let k = 0; k < 8; k++) {
    if (k === bestStart) {
      text += k === 0 ? '::' : ':';
      k += bestLength - 1;
      continue;
    }
    text += k === 7 ? groups[k]!.toString(16) : `${groups[k]!.toString(16)}:`;
  }
  return text;
}

/**
 * The client key function for IPv6 subnets of `ipv6Prefix` bits (1–128) and IPv4 ones of `ipv4Prefix`
 * bits (1–32): IPv4 `203.0.113.7` as is (as `203.0.113.0/24` with 24); `::ffff:203.0.113.7` (or
 * `::ffff:cb00:7107`) as its IPv4 address; `2001:DB8:1:2:3:4:5:6%eth0` as `2001:db8:1:2::/64`;
 * anything else as `invalid`.
 */
export function createClientKey(
  ipv6Prefix: number = DEFAULT_CLIENT_IPV6_PREFIX,
  ipv4Prefix = 32,
): (ip: string | undefined) => string {
  if (!Number.isInteger(ipv6Prefix) || ipv6Prefix < 1 || ipv6Prefix > 128) {
    throw new RangeError(`an IPv6 prefix length is 1 to 128 bits (got ${ipv6Prefix})`);
  }
  if (!Number.isInteger(ipv4Prefix) || ipv4Prefix < 1 || ipv4Prefix > 32) {
    throw new RangeError(`an IPv4 prefix length is 1 to 32 bits (got ${ipv4Prefix})`);
  }
  const suffix = `/${ipv6Prefix}`;
  const fullGroups = ipv6Prefix >>> 4;
  const partialMask = (0xffff << (16 - (ipv6Prefix & 15))) & 0xffff;
  const v4Mask = ipv4Prefix === 32 ? 0xffffffff : (0xffffffff << (32 - ipv4Prefix)) >>> 0;
  /** An IPv4 address (as a number) as its key: the subnet's first address and its length, unless /32. */
  const ipv4Key = (value: number, text: string | null) => {
    if (ipv4Prefix === 32) return text ?? formatIPv4(value);
    return `${formatIPv4((value & v4Mask) >>> 0)}/${ipv4Prefix}`;
  };
  return (ip) => {
    if (ip === undefined || ip.length === 0) return INVALID_CLIENT_KEY;
    if (ip.indexOf(':') < 0) {
      const v4 = parseIPv4(ip, 0, ip.length);
      return v4 >= 0 ? ipv4Key(v4, ip) : INVALID_CLIENT_KEY;
    }
    // The form Node reports for an IPv4 peer of a dual-stack socket.
    if (ip.startsWith(MAPPED)) {
      const v4 = parseIPv4(ip, MAPPED.length, ip.length);
      if (v4 >= 0) return ipv4Key(v4, ipv4Prefix === 32 ? ip.slice(MAPPED.length) : null);
    }
    let end = ip.indexOf('%');
    // A zone id names the interface of a link-local address; it is not part of the address.
    if (end < 0) end = ip.length;
    else if (end === ip.length - 1) return INVALID_CLIENT_KEY;
    if (!parseIPv6(ip, end)) return INVALID_CLIENT_KEY;
    if (groups[0] === 0 && groups[1] === 0 && groups[2] === 0 && groups[3] === 0 && groups[4] === 0) {
      if (groups[5] === 0xffff) return ipv4Key(groups[6]! * 65_536 + groups[7]!, null);
    }
    if (fullGroups < 8) {
      groups[fullGroups] = groups[fullGroups]! & partialMask;
      for (let k = fullGroups + 1; k < 8; k++) groups[k] = 0;
    }
    return formatIPv6() + suffix;
  };
}

function formatIPv4(value: number): string {
  return `${value >>> 24}.${(value >>> 16) & 255}.${(value >>> 8) & 255}.${value & 255}`;
}

/** The network an IPv6 site is usually given (a /48), unless clients are counted by a wider prefix. */
export const NETWORK_IPV6_PREFIX = 48;
/** The network of an IPv4 client: its /24. */
export const NETWORK_IPV4_PREFIX = 24;

/**
 * The key of the network a client belongs to, for caps one customer's many addresses share: an IPv4
 * /24, an IPv6 /48 (or the client prefix, when CLIENT_IPV6_PREFIX is wider); `invalid` stays `invalid`.
 */
export function createNetworkKey(clientIpv6Prefix: number = DEFAULT_CLIENT_IPV6_PREFIX) {
  return createClientKey(Math.min(NETWORK_IPV6_PREFIX, clientIpv6Prefix), NETWORK_IPV4_PREFIX);
}
