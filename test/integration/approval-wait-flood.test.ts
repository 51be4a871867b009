// A flood of approval waits against the service as a process with a 384 MB heap (the attack that once
// killed it): 20 IPv4 and 20 IPv6 client addresses each send 100 waits at once, REST long-polls and MCP
// wait_for_approval on a pending approval, and waits on signatures the service never saw. The process
// stays up and answers /api/health throughout, the excess is refused (429 over a share, 503 when the
// process is full), never a 5xx otherwise, and its peak RSS stays under 500 MB.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Agent, fetch } from 'undici';
import { createDatabase } from '../../src/storage/database.js';
import { createOverride, createTransaction, createVault, randomSignature } from '../support/factories.js';
import { startService } from '../support/service-process.js';

const PEAK_RSS_LIMIT_MB = 500;
const PER_ADDRESS = 100;
/**
 * Connections the flood keeps open at once: 1 000, more held waits than the heap held uncapped (4 000
 * connects in one burst would overflow the listen backlog, and the kernel would drop them unseen).
 */
const flood = new Agent({ connections: 1_000, connectTimeout: 60_000 });

/** 20 IPv4 addresses (10 in one /24, 10 in /24s of their own) and 20 IPv6 (10 in one /48, 10 apart). */
const ADDRESSES = [
  ...Array.from({ length: 10 }, (_, i) => `198.51.100.${i + 1}`),
  ...Array.from({ length: 10 }, (_, i) => `100.64.${i}.1`),
  ...Array.from({ length: 10 }, (_, i) => `2001:db8:1:${i}::1`),
  ...Array.from({ length: 10 }, (_, i) => `2001:db8:${100 + i}::1`),
];

async function seed(dataDir: string) {
  const storage = await createDatabase({ kind: 'pglite', dataDir });
  try {
    const vault = await createVault(storage.db);
    const override = await createOverride(storage.db, { vault, nonce: 0n });
    const blocked = await createTransaction(storage.db, { vault, status: 'blocked', override });
    return { vault: vault.address, signature: blocked.signature! };
  } finally {
    await storage.close();
  }
}

const peakRssMb = async (pid: number) =>
  Number(/VmHWM:\s+(\d+)/.exec(await readFile(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;

test('a flood of approval waits from 40 addresses is refused beyond the caps; the process stays up under its bound', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'vk-wait-flood-'));
  const { vault, signature } = await seed(dataDir);
  const service = await startService({
    DATA_DIR: dataDir,
    DATABASE_URL: '',
    REDIS_URL: '',
    ROLES: 'api',
    TRUST_PROXY: '1',
    NODE_OPTIONS: '--max-old-space-size=384',
  });
  try {
    const base = service.baseUrl!;
    const send = (client: string, i: number): Promise<number> => {
      const headers = { 'x-forwarded-for': client };
      const kind = i % 3;
      if (kind === 2) {
        const body = JSON.stringify({
          jsonrpc: '2.0',
          id: i,
          method: 'tools/call',
          params: { name: 'wait_for_approval', arguments: { vault, signature, timeoutSeconds: 2 } },
        });
        return fetch(`${base}/mcp`, {
          dispatcher: flood,
          method: 'POST',
          headers: {
            ...headers,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
          body,
        }).then(async (r) => ((await r.text()).includes('"isError":true') ? 429 : r.status));
      }
      const wanted = kind === 0 ? signature : randomSignature();
      return fetch(`${base}/api/vaults/${vault}/approvals/${wanted}?waitMs=2000`, {
        headers,
        dispatcher: flood,
      }).then(async (r) => {
        await r.arrayBuffer();
        return r.status;
      });
    };
    const healthy: string[] = [];
    let flooding = true;
    const health = (async () => {
      while (flooding) {
        const response = await fetch(`${base}/api/health`);
        const body = (await response.json()) as { status?: string };
        healthy.push(`${response.status} ${body.status}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    })();
    const failures: string[] = [];
    const statuses = await Promise.all(
      ADDRESSES.flatMap((client) =>
        Array.from({ length: PER_ADDRESS }, (_, i) =>
          send(client, i).catch((error: Error) => {
            failures.push(String((error.cause as Error | undefined)?.message ?? error.message));
            return 0;
          }),
        ),
      ),
    );
    flooding = false;
    await health;

    const count = (status: number) => statuses.filter((s) => s === status).length;
    const summary = `200: ${count(200)}, 429: ${count(429)}, 503: ${count(503)}`;
    assert.equal(service.child.exitCode, null, `the process is up: ${service.output.slice(-5).join('\n')}`);
    const serviceWarnings = service.output.filter((line) => /"level":(4|5)0/.test(line)).slice(-5);
    assert.deepEqual(
      failures.slice(0, 5),
      [],
      `${failures.length} requests failed; the service's last warnings:\n${serviceWarnings.join('\n')}`,
    );
    assert.equal(statuses.length, ADDRESSES.length * PER_ADDRESS);
    assert.ok(
      statuses.every((s) => s === 200 || s === 429 || s === 503),
      summary,
    );
    assert.ok(count(200) > 0 && count(429) > 0, `some waits held, the excess refused (${summary})`);
    // Health answers throughout with its report. On a starved machine the in-process database may take
    // longer than health's 2 s ping bound during the burst, which health reports as it is: 503 unhealthy.
    assert.ok(
      healthy.length > 0 && healthy.every((h) => h.startsWith('200 ') || h === '503 unhealthy'),
      `health: ${healthy.join(',')}`,
    );
    assert.equal((await fetch(`${base}/api/health`)).status, 200, 'healthy once the flood is over');
    assert.equal(service.child.exitCode, null, 'the process is up');
    const peak = await peakRssMb(service.child.pid!);
    assert.ok(peak < PEAK_RSS_LIMIT_MB, `peak RSS ${peak.toFixed(0)} MB`);
    process.stdout.write(`# approval wait flood: ${summary}; peak RSS ${peak.toFixed(0)} MB\n`);
  } finally {
    await flood.close();
    await service.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
});
