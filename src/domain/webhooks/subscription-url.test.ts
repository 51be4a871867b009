import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../errors.js';
import { classifyAddress, refusalReason } from './address-policy.js';
import { mailtoAddress, parseSubscriptionUrl } from './subscription-url.js';

const strict = { allowPrivateUrls: false, emailEnabled: false };
const open = { allowPrivateUrls: true, emailEnabled: true };

function rejects(url: string, policy = strict, message?: RegExp): void {
  assert.throws(
    () => parseSubscriptionUrl(url, policy),
    (error: unknown) => {
      assert.ok(error instanceof AppError);
      assert.equal(error.code, 'VALIDATION_ERROR');
      const issues = error.details.issues as { path: string; message: string }[];
      assert.equal(issues[0]!.path, 'body.url');
      if (message) assert.match(issues[0]!.message, message);
      return true;
    },
  );
}

describe('address policy', () => {
  it('names every kind of non-public address', () => {
    const cases: Record<string, string> = {
      '127.0.0.1': 'loopback',
      '::1': 'loopback',
      '10.0.0.8': 'private',
      '172.16.5.4': 'private',
      '192.168.0.1': 'private',
      '169.254.10.10': 'link-local',
      'fe80::1': 'link-local',
      '100.64.1.1': 'cgnat',
      '224.0.0.251': 'multicast',
      'ff02::1': 'multicast',
      'fd12:3456::1': 'unique-local',
      '::ffff:127.0.0.1': 'ipv4-mapped',
      '::ffff:8.8.8.8': 'ipv4-mapped',
      '169.254.169.254': 'metadata',
      'fd00:ec2::254': 'metadata',
      '0.0.0.0': 'unspecified',
      '::': 'unspecified',
      '64:ff9b::7f00:1': 'ipv4-translated',
      '255.255.255.255': 'reserved',
    };
    for (const [address, category] of Object.entries(cases)) {
      assert.equal(classifyAddress(address), category, address);
    }
  });

  it('lets public unicast addresses through', () => {
    for (const address of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '2606:4700:4700::1111', '93.184.216.34']) {
      assert.equal(classifyAddress(address), null, address);
      assert.equal(refusalReason(address, false), null);
    }
  });

  it('allows private addresses when configured, but never the metadata endpoints', () => {
    assert.equal(refusalReason('127.0.0.1', true), null);
    assert.equal(refusalReason('10.1.1.1', true), null);
    assert.match(refusalReason('169.254.169.254', true)!, /metadata/);
    assert.match(refusalReason('fd00:ec2::254', true)!, /metadata/);
  });
});

describe('subscription URLs', () => {
  it('accepts public https URLs as given', () => {
    assert.equal(
      parseSubscriptionUrl('https://hooks.example.com/vk?x=1', strict),
      'https://hooks.example.com/vk?x=1',
    );
  });

  it('accepts http:// only when private URLs are allowed', () => {
    rejects('http://hooks.example.com/', strict, /https/);
    assert.equal(parseSubscriptionUrl('http://127.0.0.1:8080/h', open), 'http://127.0.0.1:8080/h');
  });

  it('refuses credentials, other schemes, relative and overlong URLs', () => {
    rejects('https://user:pw@hooks.example.com/', open, /credentials/);
    rejects('ftp://hooks.example.com/', open);
    rejects('javascript:alert(1)', open);
    rejects('/relative', open, /absolute/);
    rejects(`https://hooks.example.com/${'a'.repeat(2048)}`, open, /2048/);
  });

  it('refuses loopback, private and metadata hosts written literally unless allowed', () => {
    rejects('https://127.0.0.1/', strict, /loopback/);
    rejects('https://[::1]/', strict, /loopback/);
    rejects('https://10.0.0.1/', strict, /private/);
    rejects('https://169.254.169.254/latest/meta-data', strict, /metadata/);
    rejects('https://[::ffff:7f00:1]/', strict, /ipv4-mapped/);
    rejects('https://localhost/', strict, /public host/);
    rejects('https://intranet/', strict, /public host/);
    rejects('http://169.254.169.254/', open, /metadata/);
  });

  it('refuses trailing-dot names always, and localhost-family and metadata names', () => {
    for (const url of [
      'https://localhost./',
      'https://metadata.google.internal./',
      'https://example.com./',
    ]) {
      rejects(url, strict, /dot/);
      rejects(url, open, /dot/);
    }
    for (const host of [
      'localhost',
      'LOCALHOST',
      'api.localhost',
      'localhost.localdomain',
      'localhost6',
      'ip6-localhost',
      'printer.local',
      'db.internal',
      'router.home.arpa',
    ]) {
      rejects(`https://${host}/`, strict, /public host/);
    }
    rejects('https://metadata.google.internal/', open, /metadata/);
    assert.equal(
      parseSubscriptionUrl('https://localhost.example.com/', strict),
      'https://localhost.example.com/',
    );
  });

  it('accepts mailto: with one address only when e-mail is configured', () => {
    rejects('mailto:owner@example.com', strict, /SMTP_URL/);
    assert.equal(parseSubscriptionUrl('mailto:owner@example.com', open), 'mailto:owner@example.com');
    rejects('mailto:owner@example.com?cc=other@example.com', open, /one address/);
    rejects('mailto:a@example.com,b@example.com', open);
    rejects('mailto:not-an-address', open);
    assert.equal(mailtoAddress('mailto:owner@example.com'), 'owner@example.com');
    assert.equal(mailtoAddress('https://example.com'), null);
  });
});
