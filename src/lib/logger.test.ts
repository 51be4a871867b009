import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, test } from 'node:test';
import { createLogger, deferredChildLogger, scrubLogLine } from './logger.js';

function capture(level = 'trace') {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, logger: createLogger({ level, destination }) };
}

describe('scrubLogLine', () => {
  test('replaces webhook secrets wherever they appear', () => {
    assert.equal(
      scrubLogLine('{"msg":"sent with whsec_abc+/DEF= to x"}'),
      '{"msg":"sent with whsec_[redacted] to x"}',
    );
  });

  test('removes credentials from URLs but keeps the host', () => {
    assert.equal(
      scrubLogLine('{"url":"postgres://vk:s3cret@db:5432/vk","r":"redis://:pw@cache:6379"}'),
      '{"url":"postgres://[redacted]@db:5432/vk","r":"redis://[redacted]@cache:6379"}',
    );
    assert.equal(scrubLogLine('{"url":"https://example.com/a@b"}'), '{"url":"https://example.com/a@b"}');
  });

  test('replaces PEM private keys', () => {
    const line = '{"k":"-----BEGIN PRIVATE KEY-----\\nMC4CAQAwBQYDK2VwBCIEI\\n-----END PRIVATE KEY-----"}';
    assert.equal(scrubLogLine(line), '{"k":"[redacted]"}');
  });

  test('leaves ordinary lines untouched', () => {
    const line =
      '{"level":"info","tx":"5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW"}';
    assert.equal(scrubLogLine(line), line);
  });
});

describe('createLogger', () => {
  test('redacts signature headers and secret keys up to two levels below the line', () => {
    const { lines, logger } = capture();
    logger.info({
      headers: { 'x-signature': 'SIG1', 'x-wallet-address': 'ADDR' },
      req: { headers: { 'x-message': 'MSG' } },
      outer: { request: { headers: { authorization: 'AUTH' } } },
      webhook: { secret: 'S1', nested: { privateKey: 'K1' } },
      signature: 'S2',
    });
    const line = lines.join('');
    for (const secret of ['SIG1', 'MSG', 'AUTH', 'S1', 'K1', 'S2']) assert.ok(!line.includes(secret), secret);
    assert.ok(line.includes('ADDR'));
  });

  test('child loggers scrub too', () => {
    const { lines, logger } = capture();
    logger.child({ reqId: 'r1' }).warn('retrying with whsec_SECRETVALUE');
    assert.ok(!lines.join('').includes('SECRETVALUE'));
  });
});

describe('deferredChildLogger', () => {
  test('writes with its bindings, redacted and scrubbed, and makes the child only when a line is due', () => {
    const { lines, logger } = capture('info');
    let made = 0;
    const child = logger.child.bind(logger);
    logger.child = ((...args: Parameters<typeof child>) => {
      made += 1;
      return child(...args);
    }) as typeof logger.child;
    const deferred = deferredChildLogger(logger, { reqId: 'r7' });
    deferred.debug({ ignored: true }, 'below the level');
    deferred.trace('below the level too');
    assert.equal(made, 0);
    assert.equal(deferred.isLevelEnabled('debug'), false);
    assert.equal(deferred.level, 'info');
    deferred.warn({ signature: 'S9' }, 'sending with whsec_SECRET');
    deferred.error('again');
    assert.equal(made, 1);
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.deepEqual(
      parsed.map(({ reqId, msg, signature }) => ({ reqId, msg, signature })),
      [
        { reqId: 'r7', msg: 'sending with whsec_[redacted]', signature: '[redacted]' },
        { reqId: 'r7', msg: 'again', signature: undefined },
      ],
    );
    assert.equal(deferred.bindings().reqId, 'r7');
  });

  test('a route level of its own makes the child at once, at that level', () => {
    const { lines, logger } = capture('info');
    const deferred = deferredChildLogger(logger, { reqId: 'r8' }, { level: 'debug' });
    deferred.debug('shown');
    assert.equal(JSON.parse(lines[0]!).reqId, 'r8');
  });
});
