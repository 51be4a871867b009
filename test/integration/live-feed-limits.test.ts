// Caps on open event streams: 5 per client address, a tenth of SSE_MAX_STREAMS per network (IPv4 /24,
// IPv6 /48), SSE_MAX_STREAMS in all with its last tenth kept for small networks; a closed stream frees its slot.
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { useTestApps } from '../support/test-apps.js';
import { waitFor } from '../support/wait.js';

let baseUrl: string;
const controllers: AbortController[] = [];
// The open responses, held until the test ends: undici cancels the body of a Response that is garbage
// collected, which would close its stream and free its slot in the middle of a test (a loaded machine
// collects sooner, and a sixth stream then got in).
const responses: Response[] = [];

// Registered before the world's hooks: the streams end before the app closes.
afterEach(() => {
  for (const controller of controllers.splice(0)) controller.abort();
  responses.length = 0;
});
const world = useTestApps();

async function start(env: Record<string, string> = {}): Promise<void> {
  // Rate limits off: the stream caps are the subject, not the read budget.
  ({ url: baseUrl } = await world.listen({ env: { RATE_LIMIT_ENABLED: 'false', TRUST_PROXY: '1', ...env } }));
}

/** Opens a stream as `client` (the address our proxy would append); the response stays open. */
async function open(client: string): Promise<{ status: number; body: string; close: () => void }> {
  const controller = new AbortController();
  controllers.push(controller);
  const response = await fetch(`${baseUrl}/api/events/stream`, {
    headers: { 'x-forwarded-for': `198.51.100.200, ${client}` },
    signal: controller.signal,
  });
  responses.push(response);
  const body = response.status === 200 ? '' : await response.text();
  if (response.status !== 200) assert.equal(response.headers.get('retry-after'), '5');
  return { status: response.status, body, close: () => controller.abort() };
}

/** A full garbage collection now, as a loaded machine may run one at any moment. */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

function assertRefused(outcome: { status: number; body: string }, limit: number): void {
  assert.equal(outcome.status, 429);
  const body = JSON.parse(outcome.body);
  assert.equal(body.code, 'RATE_LIMIT_EXCEEDED');
  assert.deepEqual(body.details, { limit, retryAfter: 5 });
}

describe('event stream caps', () => {
  test('a client address holds at most 5 streams; others are unaffected; closing one frees its slot', async () => {
    await start();
    const streams = [];
    for (let i = 0; i < 5; i += 1) {
      const stream = await open('203.0.113.1');
      assert.equal(stream.status, 200);
      streams.push(stream);
    }
    assertRefused(await open('203.0.113.1'), 5);
    assert.equal((await open('203.0.113.2')).status, 200);

    streams[0]!.close();
    const reopened = await waitFor(
      async () => {
        const attempt = await open('203.0.113.1');
        return attempt.status === 200 ? attempt : null;
      },
      { timeoutMs: 5_000, message: 'slot not released' },
    );
    assert.equal(reopened.status, 200);
    assertRefused(await open('203.0.113.1'), 5);
  });

  test('an IPv6 client’s cap is its /64; an IPv4-mapped client shares its IPv4 address’s cap', async () => {
    await start();
    for (let i = 1; i <= 5; i += 1) assert.equal((await open(`2001:db8:5:6::${i}`)).status, 200);
    assertRefused(await open('2001:DB8:5:6:FFFF:FFFF:FFFF:FFFF'), 5);
    assert.equal((await open('2001:db8:5:7::1')).status, 200);
    for (let i = 0; i < 5; i += 1) assert.equal((await open('::ffff:203.0.113.9')).status, 200);
    assertRefused(await open('203.0.113.9'), 5);
  });

  test('SSE_MAX_STREAMS caps all clients together; a closed stream frees a slot for anyone', async () => {
    await start({ SSE_MAX_STREAMS: '3' });
    const streams = [];
    for (const client of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) {
      const stream = await open(client);
      assert.equal(stream.status, 200);
      streams.push(stream);
    }
    assertRefused(await open('203.0.113.4'), 3);
    streams[1]!.close();
    await waitFor(async () => (await open('203.0.113.4')).status === 200, {
      timeoutMs: 5_000,
      message: 'slot not released',
    });
    assertRefused(await open('203.0.113.5'), 3);
  });

  test('one network (an IPv4 /24, an IPv6 /48) holds at most a tenth of SSE_MAX_STREAMS, whatever its clients', async () => {
    await start({ SSE_MAX_STREAMS: '60' });
    for (const [first, second, third, elsewhere] of [
      ['203.0.113.1', '203.0.113.2', '203.0.113.3', '203.0.114.1'],
      ['2001:db8:1:1::1', '2001:db8:1:2::1', '2001:db8:1:ff00::1', '2001:db8:2:1::1'],
    ] as const) {
      for (let i = 0; i < 5; i += 1) assert.equal((await open(first)).status, 200);
      assert.equal((await open(second)).status, 200);
      const refused = await open(third);
      assertRefused(refused, 6);
      assert.match(JSON.parse(refused.body).error, /from one network/);
      assertRefused(await open(second), 6);
      assert.equal((await open(elsewhere)).status, 200);
    }
  });

  test('when big networks hold all but the last tenth, a network holding fewer than 5 streams still gets in', async () => {
    await start({ SSE_MAX_STREAMS: '60' });
    // Nine networks at their cap of 6 (a client's 5 and one more): 54 of 60 open.
    for (let n = 1; n <= 9; n += 1) {
      for (let i = 0; i < 5; i += 1) assert.equal((await open(`2001:db8:${n}:1::1`)).status, 200);
      assert.equal((await open(`2001:db8:${n}:2::1`)).status, 200);
    }
    collectGarbage(); // the open streams stay open: nothing but the client's abort closes them
    assertRefused(await open('2001:db8:1:3::1'), 6);
    // A newcomer gets the reserve up to one client's share; then only other small networks do.
    for (let i = 0; i < 5; i += 1) assert.equal((await open('198.51.100.1')).status, 200);
    const reserved = await open('198.51.100.2');
    assertRefused(reserved, 54);
    assert.match(
      JSON.parse(reserved.body).error,
      /The last 6 slots for event streams open are kept for networks holding fewer than 5/,
    );
    assert.equal((await open('192.0.2.1')).status, 200);
    assertRefused(await open('192.0.2.200'), 60);
  });
});
