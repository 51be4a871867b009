import assert from 'node:assert/strict';
import { BlockList, isIP } from 'node:net';
import { test } from 'node:test';
import { createClientKey, createNetworkKey, INVALID_CLIENT_KEY, parseIPv4 } from './client-key.js';

const keyOf = createClientKey();

test('an IPv4 address is its own key', () => {
  assert.equal(keyOf('203.0.113.7'), '203.0.113.7');
  assert.equal(keyOf('0.0.0.0'), '0.0.0.0');
  assert.equal(keyOf('255.255.255.255'), '255.255.255.255');
});

test('an IPv4-mapped IPv6 address counts as its IPv4 address, in every spelling', () => {
  for (const mapped of [
    '::ffff:203.0.113.7',
    '::FFFF:203.0.113.7',
    '0:0:0:0:0:ffff:203.0.113.7',
    '0000:0000:0000:0000:0000:FFFF:CB00:7107',
    '::ffff:cb00:7107',
    '::ffff:203.0.113.7%eth0',
  ]) {
    assert.equal(keyOf(mapped), '203.0.113.7', mapped);
  }
  // One mapped client and the same client over IPv4 share a budget.
  assert.equal(keyOf('::ffff:10.0.0.1'), keyOf('10.0.0.1'));
});

test('an IPv6 address counts as its /64, however it is written', () => {
  const expected = '2001:db8:1:2::/64';
  for (const form of [
    '2001:db8:1:2:3:4:5:6',
    '2001:0DB8:0001:0002:0003:0004:0005:0006',
    '2001:Db8:1:2::6',
    '2001:db8:1:2::',
    '2001:db8:1:2:ffff:ffff:ffff:ffff',
    '2001:db8:1:2::1.2.3.4',
    '2001:db8:1:2::7%eth0',
  ]) {
    assert.equal(keyOf(form), expected, form);
  }
  assert.equal(keyOf('fe80::1%eth0'), 'fe80::/64');
  assert.equal(keyOf('fe80::1%25'), 'fe80::/64');
  assert.equal(keyOf('::1'), '::/64');
  assert.equal(keyOf('::'), '::/64');
  assert.notEqual(keyOf('2001:db8:1:3::1'), expected, 'the next /64 is another client');
});

test('the key text is RFC 5952: lowercase, the longest zero run compressed, the first on a tie', () => {
  const full = createClientKey(128);
  assert.equal(full('2001:DB8:0:0:1:0:0:1'), '2001:db8::1:0:0:1/128');
  assert.equal(full('2001:db8:0:1:0:0:0:1'), '2001:db8:0:1::1/128');
  assert.equal(full('2001:db8:0:1:1:1:1:1'), '2001:db8:0:1:1:1:1:1/128', 'a single zero group stays');
  assert.equal(full('1:0:0:0:0:0:0:0'), '1::/128');
  assert.equal(full('0:0:0:0:0:0:0:1'), '::1/128');
  assert.equal(full('::2:3:4:5:6:7:8'), '0:2:3:4:5:6:7:8/128', 'one zero group is never ::');
  assert.equal(full('1:2:3:4:5:6:7::'), '1:2:3:4:5:6:7:0/128');
});

test('the prefix length is configurable, bits inside a group included', () => {
  assert.equal(createClientKey(48)('2001:db8:abcd:1234::1'), '2001:db8:abcd::/48');
  assert.equal(createClientKey(56)('2001:db8:abcd:12ff::1'), '2001:db8:abcd:1200::/56');
  assert.equal(createClientKey(1)('ffff::1'), '8000::/1');
  assert.equal(createClientKey(127)('2001:db8::3'), '2001:db8::2/127');
  for (const bad of [0, 129, 1.5, Number.NaN]) assert.throws(() => createClientKey(bad), RangeError);
});

test('a network key is an IPv4 /24 or an IPv6 /48, mapped addresses as their IPv4 network', () => {
  const networkOf = createNetworkKey();
  assert.equal(networkOf('203.0.113.7'), '203.0.113.0/24');
  assert.equal(networkOf('203.0.113.255'), networkOf('203.0.113.1'));
  assert.notEqual(networkOf('203.0.114.1'), networkOf('203.0.113.1'));
  assert.equal(networkOf('::ffff:203.0.113.7'), '203.0.113.0/24');
  assert.equal(networkOf('::ffff:cb00:7107'), '203.0.113.0/24');
  assert.equal(networkOf('2001:db8:abcd:1234::1'), '2001:db8:abcd::/48');
  assert.equal(networkOf('2001:db8:abcd:ff00:1::9'), '2001:db8:abcd::/48');
  assert.equal(networkOf('not an address'), INVALID_CLIENT_KEY);
  // Clients counted by a prefix wider than /48: the network is the client.
  assert.equal(createNetworkKey(40)('2001:db8:ab12::1'), '2001:db8:ab00::/40');
  assert.equal(createClientKey(64, 16)('198.51.100.7'), '198.51.0.0/16');
  for (const bad of [0, 33, 2.5]) assert.throws(() => createClientKey(64, bad), RangeError);
});

test('anything that is not an address shares one key', () => {
  for (const malformed of [
    undefined,
    '',
    'unknown',
    '203.0.113',
    '203.0.113.7.1',
    '203.0.113.256',
    '203.0.113.07',
    '203.0.113.7:8080',
    ' 203.0.113.7',
    '1.2.3.',
    '.1.2.3',
    '::ffff:1.2.3',
    '2001:db8::1::2',
    '2001:db8:1:2:3:4:5:6:7',
    '2001:db8:1:2:3:4:5',
    '1:2:3:4:5:6:7:8::',
    '2001:db8:12345::1',
    '2001:db8::g',
    ':1::2',
    '1::2:',
    ':::',
    '[2001:db8::1]',
    '2001:db8::1%',
    '%eth0',
    '1:2:3:4:5:6:7:1.2.3.4',
    '::1.2.3.4:5',
    '2001:db8::1 ',
  ]) {
    assert.equal(keyOf(malformed), INVALID_CLIENT_KEY, String(malformed));
  }
});

test('parseIPv4 reads a dotted quad inside a longer text', () => {
  assert.equal(parseIPv4('x192.0.2.1y', 1, 10), 0xc0000201);
  assert.equal(parseIPv4('0.0.0.0', 0, 7), 0);
  assert.equal(parseIPv4('01.0.0.0', 0, 8), -1);
});

test('agrees with Node on random addresses: validity with net.isIP, the subnet with net.BlockList', () => {
  let seed = 27;
  const random = (n: number) => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed % n;
  };
  const group = () => {
    const text = random(4) === 0 ? '0' : random(65_536).toString(16);
    return random(2) === 0 ? text.toUpperCase() : text.padStart(random(2) === 0 ? 4 : text.length, '0');
  };
  for (let round = 0; round < 3_000; round++) {
    const parts = Array.from({ length: 8 }, group);
    if (random(3) === 0) parts.fill('0', random(8), random(8) + 1);
    let text = parts.join(':');
    if (random(2) === 0) text = text.replace(/(^|:)0(:0)+(:|$)/, '::');
    if (random(10) === 0) text = text.slice(0, random(text.length));
    const key = keyOf(text);
    if (isIP(text) !== 6) {
      assert.equal(key, INVALID_CLIENT_KEY, text);
      continue;
    }
    if (!key.includes('/')) {
      assert.equal(isIP(key), 4, text);
      continue;
    }
    const [subnet, bits] = key.split('/');
    const block = new BlockList();
    block.addSubnet(subnet!, Number(bits), 'ipv6');
    assert.ok(block.check(text, 'ipv6'), `${text} is in ${key}`);
    assert.equal(isIP(subnet!), 6, key);
  }
});
