import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createRoleStatus } from '../../lib/role-status.js';
import { createReadinessService, WORKER_CLAIM_STALE_MS } from './readiness.js';

function service(roles: ('api' | 'ingestor' | 'worker')[], databaseUp = true) {
  const roleStatus = createRoleStatus();
  let clock = 1_000_000;
  const pings = { count: 0 };
  const readiness = createReadinessService({
    storage: {
      ping: async () => {
        pings.count += 1;
        return databaseUp;
      },
    },
    roles,
    roleStatus,
    startedAt: 0,
    now: () => clock,
  });
  return { readiness, roleStatus, pings, advance: (ms: number) => (clock += ms), now: () => clock };
}

describe('readiness', () => {
  test('however many probes arrive, the database is pinged at most once a second', async () => {
    const { readiness, pings, advance } = service(['api']);
    await Promise.all(Array.from({ length: 20 }, () => readiness.getReadiness()));
    assert.equal(pings.count, 1);
    advance(999);
    await readiness.getReadiness();
    assert.equal(pings.count, 1);
    advance(1);
    await readiness.getReadiness();
    assert.equal(pings.count, 2);
  });

  test('names the database and each role; a standby ingestor is ready, an active one needs its feed', async () => {
    const { readiness, roleStatus } = service(['ingestor']);
    roleStatus.ingestor.state = 'standby';
    let result = await readiness.getReadiness();
    assert.equal(result.status, 'ready');
    assert.deepEqual(Object.keys(result.checks), ['database', 'ingestor']);
    roleStatus.ingestor.state = 'active';
    assert.equal((await readiness.getReadiness()).status, 'not_ready');
    Object.assign(roleStatus.ingestor, {
      feedConnected: true,
      feedEndpoint: 'https://rpc.example.com',
      feedSource: 'websocket',
    });
    result = await readiness.getReadiness();
    assert.equal(result.status, 'ready');
    assert.match(result.checks.ingestor?.detail ?? '', /\(websocket\) via https:\/\/rpc\.example\.com/);
  });

  test('a worker is ready while its claims succeed and are recent', async () => {
    const { readiness, roleStatus, advance, now } = service(['worker']);
    assert.equal((await readiness.getReadiness()).status, 'not_ready', 'not running yet');
    Object.assign(roleStatus.worker, { running: true, lastClaimAt: now(), lastClaimFailed: false });
    assert.equal((await readiness.getReadiness()).status, 'ready');
    advance(WORKER_CLAIM_STALE_MS + 1);
    assert.equal((await readiness.getReadiness()).status, 'not_ready', 'stale');
    Object.assign(roleStatus.worker, { lastClaimAt: now(), lastClaimFailed: true });
    assert.equal((await readiness.getReadiness()).status, 'not_ready', 'failing claims');
  });

  test('an unreachable database makes every role not ready', async () => {
    const { readiness, roleStatus } = service(['api'], false);
    roleStatus.api.accepting = true;
    const result = await readiness.getReadiness();
    assert.equal(result.status, 'not_ready');
    assert.equal(result.checks.database?.ok, false);
    assert.equal(result.checks.api?.ok, true);
  });
});
