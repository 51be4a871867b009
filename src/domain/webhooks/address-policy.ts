// Which network addresses a webhook may reach: SSRF protection classifies every resolved address.
import { BlockList, isIP } from 'node:net';

export type AddressCategory =
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'cgnat'
  | 'multicast'
  | 'unique-local'
  | 'ipv4-mapped'
  | 'ipv4-translated'
  | 'reserved'
  | 'metadata';

type Range = readonly [network: string, prefix: number];

// Checked in order: the first match names the refusal; metadata before the ranges containing it.
const RANGES: ReadonlyArray<readonly [AddressCategory, 'ipv4' | 'ipv6', readonly Range[]]> = [
  [
    'metadata',
    'ipv4',
    [
      ['169.254.169.254', 32],
      ['100.100.100.200', 32],
    ],
  ],
  ['metadata', 'ipv6', [['fd00:ec2::254', 128]]],
  ['ipv4-mapped', 'ipv6', [['::ffff:0:0', 96]]],
  [
    'ipv4-translated',
    'ipv6',
    [
      ['64:ff9b::', 96],
      ['64:ff9b:1::', 48],
      ['2002::', 16],
      ['2001::', 32],
    ],
  ],
  ['unspecified', 'ipv4', [['0.0.0.0', 8]]],
  ['unspecified', 'ipv6', [['::', 128]]],
  ['loopback', 'ipv4', [['127.0.0.0', 8]]],
  ['loopback', 'ipv6', [['::1', 128]]],
  [
    'private',
    'ipv4',
    [
      ['10.0.0.0', 8],
      ['172.16.0.0', 12],
      ['192.168.0.0', 16],
    ],
  ],
  ['link-local', 'ipv4', [['169.254.0.0', 16]]],
  [
    'link-local',
    'ipv6',
    [
      ['fe80::', 10],
      ['fec0::', 10],
    ],
  ],
  ['cgnat', 'ipv4', [['100.64.0.0', 10]]],
  ['multicast', 'ipv4', [['224.0.0.0', 4]]],
  ['multicast', 'ipv6', [['ff00::', 8]]],
  ['unique-local', 'ipv6', [['fc00::', 7]]],
  [
    'reserved',
    'ipv4',
    [
      ['192.0.0.0', 24],
      ['192.0.2.0', 24],
      ['192.88.99.0', 24],
      ['198.18.0.0', 15],
      ['198.51.100.0', 24],
      ['203.0.113.0', 24],
      ['240.0.0.0', 4],
    ],
  ],
  [
    'reserved',
    'ipv6',
    [
      ['::', 96],
      ['100::', 64],
      ['2001:db8::', 32],
    ],
  ],
];

const LISTS = RANGES.map(([category, family, ranges]) => {
  const list = new BlockList();
  for (const [network, prefix] of ranges) list.addSubnet(network, prefix, family);
  return { category, family, list };
});

/** The category of a non-public address, or null for a public unicast one (or a non-IP string). */
export function classifyAddress(address: string): AddressCategory | null {
  const version = isIP(address);
  if (version === 0) return null;
  const family = version === 4 ? 'ipv4' : 'ipv6';
  for (const { category, family: listFamily, list } of LISTS) {
    if (listFamily === family && list.check(address, family)) return category;
  }
  return null;
}

/**
 * Why a webhook may not connect to this address, or null when it may. Metadata endpoints are
 * refused even when private addresses are allowed: no receiver legitimately lives there.
 */
export function refusalReason(address: string, allowPrivate: boolean): string | null {
  const category = classifyAddress(address);
  if (category === null) return null;
  if (allowPrivate && category !== 'metadata') return null;
  return `${address} is ${/^[aeiou]/.test(category) ? 'an' : 'a'} ${category} address`;
}

/** The hostname of a URL without IPv6 brackets. */
export function unbracketHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}
