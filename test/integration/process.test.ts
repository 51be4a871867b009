import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { spawnForTest } from '../support/child-process.js';
import { startService } from '../support/service-process.js';
import { waitFor } from '../support/wait.js';

describe('the service process', () => {
  test('refuses to start on bad configuration and names every bad variable', async () => {
    const service = await startService(
      { PORT: 'abc', SOLANA_CLUSTER: 'moonnet', ROLES: 'api,chef', DATABASE_URL: 'memory://' },
      { waitForListen: false },
    );
    const { code } = await service.exited;
    assert.equal(code, 1);
    const text = service.output.join('\n');
    assert.match(text, /Invalid configuration/);
    assert.match(text, /PORT/);
    assert.match(text, /SOLANA_CLUSTER/);
    assert.match(text, /ROLES/);
  });

  test('serves health, then stops gracefully on SIGTERM within 10 s', async () => {
    // The embedded defaults: no Redis even when the suite itself runs with one.
    const service = await startService({ DATABASE_URL: 'memory://', REDIS_URL: '', ROLES: 'api' });
    try {
      const res = await fetch(`${service.baseUrl}/api/health`);
      const body = (await res.json()) as { database: string; redis: string };
      assert.equal(body.database, 'connected');
      assert.equal(body.redis, 'in-memory');
    } catch (error) {
      await service.stop('SIGKILL');
      throw error;
    }
    const started = Date.now();
    const { code } = await service.stop('SIGTERM');
    assert.equal(code, 0);
    assert.ok(Date.now() - started < 10_000);
    assert.ok(service.output.some((line) => line.includes('"msg":"stopped"')));
  });

  test('a signal while it waits for PostgreSQL at start stops it cleanly', async () => {
    const service = await startService(
      { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none', REDIS_URL: '', ROLES: 'api,worker' },
      { waitForListen: false },
    );
    await waitFor(() => service.output.some((line) => line.includes('database unavailable at start')), {
      message: 'the start waiting for the database',
      timeoutMs: 30_000,
    });
    const { code } = await service.stop('SIGTERM');
    assert.equal(code, 0);
    assert.ok(service.output.some((line) => line.includes('stopped while waiting for the database')));
  });

  test('SIGINT stops it too', async () => {
    const service = await startService({ DATABASE_URL: 'memory://', ROLES: 'api' });
    const { code } = await service.stop('SIGINT');
    assert.equal(code, 0);
  });
});

describe('npm start', () => {
  test('a SIGTERM to npm stops the service it started (nothing is left running)', async (t) => {
    const npm = spawnForTest('npm', ['start'], {
      env: {
        ...process.env,
        // The suite resolves our packages to their TypeScript sources; the built service imports dist/.
        NODE_OPTIONS: '',
        DATABASE_URL: 'memory://',
        REDIS_URL: '',
        ROLES: 'api',
        PORT: '0',
        HOST: '127.0.0.1',
      },
      // Whatever npm leaves behind when the test fails is ended with its process group.
      t,
    });
    // A deadline, not a wait: npm start compiles dist/ first when the sources are newer.
    const [, baseUrl] = await npm.waitForOutput(
      /Server listening at (http:\/\/127\.0\.0\.1:\d+)/,
      'npm start listening',
      180_000,
    );
    npm.child.kill('SIGTERM');
    await waitFor(
      async () => {
        try {
          await fetch(`${baseUrl}/livez`);
          return false;
        } catch {
          return true; // connection refused: the service is gone
        }
      },
      { timeoutMs: 15_000, message: 'the service stopped after SIGTERM to npm' },
    );
  });
});
