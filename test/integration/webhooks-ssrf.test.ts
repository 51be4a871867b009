// The sender's connect-time SSRF guard, with DNS injected (a network edge): every answer is checked,
// and the socket goes to the very address that was checked.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, afterEach, before, describe, test } from 'node:test';
import { buildConnector } from 'undici';
import { createWebhookReceiver, type WebhookReceiver } from '../../dev/support/webhook-receiver.js';
import { createHttpSender, type HttpSender } from '../../src/jobs/http-sender.js';
import type { ResolvedAddress, Resolver } from '../../src/jobs/ssrf.js';

const request = (url: string) => ({
  url,
  body: '{"id":"1"}',
  headers: { 'content-type': 'application/json' },
});
const answer = (...addresses: string[]): ResolvedAddress[] =>
  addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

let target: WebhookReceiver;
const senders: HttpSender[] = [];

function sender(options: {
  allow?: boolean;
  resolve?: Resolver;
  connect?: buildConnector.connector;
  timeoutMs?: number;
}) {
  const created = createHttpSender({
    timeoutMs: options.timeoutMs ?? 2_000,
    allowPrivateAddresses: options.allow ?? false,
    ...(options.resolve ? { resolve: options.resolve } : {}),
    ...(options.connect ? { connect: options.connect } : {}),
  });
  senders.push(created);
  return created;
}

/** A socket connector that records where it was asked to connect and connects nowhere. */
function recordingConnector() {
  const hosts: string[] = [];
  const connect: buildConnector.connector = (options, callback) => {
    hosts.push(options.hostname);
    callback(new Error('test connector: no network'), null);
  };
  return { hosts, connect };
}

before(async () => {
  target = await createWebhookReceiver();
});
after(async () => {
  await target.close();
});
afterEach(async () => {
  await Promise.all(senders.splice(0).map((s) => s.close()));
});

describe('connect-time address check', () => {
  test('refuses a name that resolves to a non-public address, without connecting', async () => {
    const cases: [string, RegExp][] = [
      ['127.0.0.1', /loopback/],
      ['::1', /loopback/],
      ['10.0.0.5', /private/],
      ['192.168.1.20', /private/],
      ['169.254.169.254', /metadata/],
      ['fd00:ec2::254', /metadata/],
      ['::ffff:127.0.0.1', /ipv4-mapped/],
      ['100.64.0.1', /cgnat/],
      ['224.0.0.1', /multicast/],
      ['fe80::1', /link-local/],
      ['fd12::1', /unique-local/],
      ['0.0.0.0', /unspecified/],
    ];
    const { hosts, connect } = recordingConnector();
    for (const [address, reason] of cases) {
      const outcome = await sender({ resolve: async () => answer(address), connect }).send(
        request(`http://hooks.test:${target.port}/h`),
      );
      assert.equal(outcome.ok, false);
      assert.equal(outcome.statusCode, null);
      assert.match(outcome.detail!, /refused hooks\.test/, address);
      assert.match(outcome.detail!, reason, address);
      assert.equal(outcome.error, 'blocked_address', address);
    }
    assert.deepEqual(hosts, [], 'a refused address was connected to');
    assert.equal(target.requests.length, 0);
  });

  test('refuses literal private addresses in the URL without asking DNS', async () => {
    let lookups = 0;
    const resolve: Resolver = async () => {
      lookups += 1;
      return answer('93.184.216.34');
    };
    for (const url of [
      `http://127.0.0.1:${target.port}/h`,
      `http://[::1]:${target.port}/h`,
      'http://169.254.169.254/latest',
    ]) {
      const outcome = await sender({ resolve }).send(request(url));
      assert.match(outcome.detail ?? '', /refused/, url);
    }
    assert.equal(lookups, 0);
    assert.equal(target.requests.length, 0);
  });

  test('refuses a name whose answers mix public and private addresses', async () => {
    const { hosts, connect } = recordingConnector();
    const outcome = await sender({ resolve: async () => answer('93.184.216.34', '10.1.2.3'), connect }).send(
      request('http://mixed.test/h'),
    );
    assert.match(outcome.detail!, /10\.1\.2\.3 is a private address/);
    assert.deepEqual(hosts, []);
  });

  test('DNS rebinding cannot swap the target: the socket goes to the address that was checked', async () => {
    const answers = [answer('93.184.216.34'), answer('127.0.0.1')];
    let lookups = 0;
    const resolve: Resolver = async () => answers[Math.min(lookups++, answers.length - 1)]!;
    const { hosts, connect } = recordingConnector();
    const rebinding = sender({ resolve, connect });

    const first = await rebinding.send(request(`http://rebind.test:${target.port}/h`));
    assert.equal(lookups, 1, 'the name was resolved more than once for one connection');
    assert.deepEqual(hosts, ['93.184.216.34']);
    assert.match(first.detail!, /no network/);

    const second = await rebinding.send(request(`http://rebind.test:${target.port}/h`));
    assert.match(second.detail!, /refused rebind\.test: 127\.0\.0\.1 is a loopback address/);
    assert.equal(second.error, 'blocked_address');
    assert.deepEqual(hosts, ['93.184.216.34'], 'the rebound address was connected to');
    assert.equal(target.requests.length, 0);
  });

  test('allows private addresses when configured, keeping the host name in the request', async () => {
    const before = target.requests.length;
    const outcome = await sender({ allow: true, resolve: async () => answer('127.0.0.1') }).send(
      request(`http://hooks.test:${target.port}/h`),
    );
    assert.deepEqual([outcome.ok, outcome.statusCode, outcome.responseBody], [true, 200, 'ok']);
    assert.equal(target.requests.length, before + 1);
    assert.equal(target.requests.at(-1)!.headers.host, `hooks.test:${target.port}`);
  });

  test('tries the next checked address when one cannot be reached', async () => {
    const before = target.requests.length;
    const asked: string[] = [];
    const real = buildConnector({ timeout: 2_000 });
    const connect: buildConnector.connector = (options, callback) => {
      asked.push(options.hostname);
      real(options, callback);
    };
    // The receiver listens on 127.0.0.1 only, so ::1 (or 127.0.0.1 at no listener) is refused first.
    const outcome = await sender({
      allow: true,
      resolve: async () => answer('::1', '127.0.0.1'),
      connect,
    }).send(request(`http://dual.test:${target.port}/h`));
    assert.deepEqual([outcome.ok, outcome.statusCode], [true, 200]);
    assert.deepEqual(asked, ['::1', '127.0.0.1']);
    assert.equal(target.requests.length, before + 1);
  });

  test('refuses the metadata endpoints even when private addresses are allowed', async () => {
    const outcome = await sender({ allow: true, resolve: async () => answer('169.254.169.254') }).send(
      request('http://metadata.test/latest/meta-data'),
    );
    assert.match(outcome.detail!, /metadata/);
  });
});

describe('TLS after pinning the address', () => {
  const cert = readFileSync(new URL('../support/tls/hooks-test.crt', import.meta.url));
  const key = readFileSync(new URL('../support/tls/hooks-test.key', import.meta.url));
  let port: number;
  let server: ReturnType<typeof createServer>;
  before(async () => {
    server = createServer({ cert, key }, (_req, res) => res.writeHead(200).end('secure'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  test('verifies the certificate against the URL host name, not the pinned address', async () => {
    const connect = buildConnector({ ca: cert, timeout: 2_000 });
    const ok = await sender({ allow: true, resolve: async () => answer('127.0.0.1'), connect }).send(
      request(`https://hooks.test:${port}/h`),
    );
    assert.deepEqual([ok.ok, ok.responseBody], [true, 'secure']);
    const wrongName = await sender({ allow: true, resolve: async () => answer('127.0.0.1'), connect }).send(
      request(`https://other.test:${port}/h`),
    );
    assert.equal(wrongName.ok, false);
    assert.match(wrongName.detail!, /altnames|ERR_TLS_CERT_ALTNAME_INVALID/);
    assert.equal(wrongName.error, 'tls');
  });
});

describe('responses', () => {
  test('does not follow redirects', async () => {
    const redirecting = await createWebhookReceiver({
      responder: () => ({ status: 302, headers: { location: `${target.url}/elsewhere` } }),
    });
    try {
      const before = target.requests.length;
      const outcome = await sender({ allow: true }).send(request(redirecting.url));
      assert.deepEqual([outcome.ok, outcome.statusCode], [false, 302]);
      assert.equal(redirecting.requests.length, 1);
      assert.equal(target.requests.length, before);
    } finally {
      await redirecting.close();
    }
  });

  test('keeps the first 1 KiB of the response and gives up at the timeout', async () => {
    const verbose = await createWebhookReceiver({
      responder: (_request, index) => (index === 0 ? { status: 500, body: 'x'.repeat(5000) } : 'hang'),
    });
    try {
      const send = sender({ allow: true, timeoutMs: 300 });
      const long = await send.send(request(verbose.url));
      assert.deepEqual([long.statusCode, long.responseBody?.length], [500, 1024]);
      const hung = await send.send(request(verbose.url));
      assert.deepEqual([hung.ok, hung.statusCode, hung.error], [false, null, 'timeout']);
    } finally {
      await verbose.close();
    }
  });
});
