// The demo saves its owner's access (wallet key and an API key) where a visitor can use it.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { getBase58Decoder } from '@solana/kit';
import type { FastifyInstance } from 'fastify';
import { createOwner } from '../../scripts/demo/owner.js';
import { ownerAccessLines, saveOwnerAccess } from '../../scripts/demo/owner-access.js';
import { createTestApp } from '../support/app.js';
import { createTestStorage, type TestStorage } from '../support/database.js';

let storage: TestStorage;
let app: FastifyInstance;
let baseUrl: string;
let dir: string;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

before(async () => {
  storage = await createTestStorage();
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  // Signed requests name the host the service expects: the demo sets PUBLIC_BASE_URL to its own URL.
  ({ app } = await createTestApp({ storage: storage.storage, env: { PUBLIC_BASE_URL: baseUrl } }));
  await app.listen({ port, host: '127.0.0.1' });
  dir = await mkdtemp(join(tmpdir(), 'vk-demo-'));
});
after(async () => {
  await app.close();
  await storage.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the demo owner', () => {
  test('its wallet key and an API key are saved for the visitor, who can then read its webhooks', async () => {
    const owner = createOwner(baseUrl, 'http://127.0.0.1:1');
    const access = await saveOwnerAccess(owner, baseUrl, dir);

    const secret = Uint8Array.from(JSON.parse(await readFile(access.keypairFile, 'utf8')) as number[]);
    assert.equal(secret.length, 64, 'solana-keygen format: seed and public key');
    assert.equal(getBase58Decoder().decode(secret.subarray(32)), owner.address);
    assert.equal((await stat(access.keypairFile)).mode & 0o777, 0o600);

    const env = Object.fromEntries(
      (await readFile(access.envFile, 'utf8'))
        .split('\n')
        .filter((line) => /^[A-Z_]+=/.test(line))
        .map((line) => line.split('=') as [string, string]),
    );
    assert.equal(env.VAULTKEEPER_API_URL, baseUrl);
    assert.match(env.VAULTKEEPER_API_KEY ?? '', /^vk_/);
    // The printed example, run as written: the owner's webhooks through the API key.
    const res = await fetch(`${env.VAULTKEEPER_API_URL}/api/webhooks`, {
      headers: { authorization: `Bearer ${env.VAULTKEEPER_API_KEY}` },
    });
    assert.equal(res.status, 200);
    assert.deepEqual(((await res.json()) as { webhooks: unknown[] }).webhooks, []);

    const lines = ownerAccessLines(owner, access, baseUrl).join('\n');
    assert.ok(lines.includes(access.keypairFile) && lines.includes(access.envFile));
    assert.match(
      lines,
      /curl -s -H "Authorization: Bearer \$VAULTKEEPER_API_KEY" \$VAULTKEEPER_API_URL\/api\/webhooks/,
    );
    assert.ok(!lines.includes(access.apiKey), 'the key itself is not printed');
  });
});
