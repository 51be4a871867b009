import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readAlertForm } from '../../web/alert-settings.js';
import { approvalPathOf, pathOf } from '../../web/blink-links.js';
import { parseSol } from '../../web/format.js';

const VAULT = '7ahLfVoTVkWGczwHEDNC4yX8zV1bJy9tr1kaztMtsbT9';

describe("the owner console's inputs", () => {
  test('a SOL amount becomes exact lamports; anything else is refused', () => {
    assert.equal(parseSol('2.5'), 2_500_000_000n);
    assert.equal(parseSol(' 2,5 '), 2_500_000_000n);
    assert.equal(parseSol('0.000000001'), 1n);
    assert.equal(parseSol('1234567890.123456789'), 1_234_567_890_123_456_789n);
    for (const bad of ['', 'abc', '1.0000000001', '-1', '1e9', '1.2.3', '12345678901'])
      assert.equal(parseSol(bad), null, bad);
  });

  test("a blocked row's Blink becomes its approval page on this host, the transfer kept", () => {
    assert.equal(
      approvalPathOf(`https://vk.example/api/actions/${VAULT}/7?transfer=5abc`),
      `/overrides/${VAULT}/7?transfer=5abc`,
    );
    assert.equal(approvalPathOf(`https://vk.example/api/actions/${VAULT}/7`), `/overrides/${VAULT}/7`);
    assert.equal(approvalPathOf('https://vk.example/somewhere/else'), null);
    assert.equal(
      pathOf(`https://vk.example/overrides/${VAULT}/7?transfer=x`),
      `/overrides/${VAULT}/7?transfer=x`,
    );
  });

  test('the alert form reads as the PUT body, or names the first wrong field', () => {
    const form = {
      thresholds: '80, 100',
      velocityOn: true,
      windowSeconds: '60',
      maxTransfers: '30',
      expiryWarningMinutes: '15',
    };
    assert.deepEqual(readAlertForm(form), {
      budgetThresholds: [80, 100],
      velocity: { windowSeconds: 60, maxTransfers: 30 },
      expiryWarningMinutes: 15,
    });
    assert.deepEqual(readAlertForm({ ...form, thresholds: '', velocityOn: false }), {
      budgetThresholds: [],
      velocity: null,
      expiryWarningMinutes: 15,
    });
    const cases: [Partial<typeof form>, RegExp][] = [
      [{ thresholds: '0' }, /^Budget thresholds/],
      [{ thresholds: '10 20 30 40 50 60' }, /^Budget thresholds/],
      [{ thresholds: '80, 80' }, /each percentage once/],
      [{ expiryWarningMinutes: '60' }, /^Expiry warning/],
      [{ windowSeconds: '59' }, /^Velocity window/],
      [{ maxTransfers: '10001' }, /^Velocity limit/],
    ];
    for (const [change, message] of cases)
      assert.match(String(readAlertForm({ ...form, ...change })), message);
  });
});
