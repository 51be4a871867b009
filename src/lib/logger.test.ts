import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, test } from 'node:test';
import { createLogger, deferredChildLogger, type LoggerOptions, scrubLogLine } from './logger.js';

function capture(level = 'trace', options: Omit<LoggerOptions, 'level' | 'destination'> = {}) {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, logger: createLogger({ level, destination, ...options }) };
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

  test('replaces the given texts (RPC URLs) in every line, before the line is written', () => {
    const { lines, logger } = capture('info', {
      replacements: [
        ['https://rpc.example.com/v2/KEY123?api-key=Q9', 'https://rpc.example.com'],
        ['/v2/KEY123?api-key=Q9', '/[redacted]'],
      ],
    });
    logger.warn({ err: 'request to https://rpc.example.com/v2/KEY123?api-key=Q9 failed' }, 'read failed');
    logger.child({ path: '/v2/KEY123?api-key=Q9' }).info('seen');
    const text = lines.join('');
    assert.ok(!text.includes('KEY123') && !text.includes('Q9'), text);
    assert.match(text, /request to https:\/\/rpc\.example\.com failed/);
  });

  test('human-readable lines on a terminal, redacted and scrubbed as the JSON ones', () => {
    const { lines, logger } = capture('info', { pretty: true });
    logger.info({ signature: 'SIGVALUE', tx: 'abc' }, 'retrying with whsec_SECRETVALUE');
    const text = lines.join('');
    assert.ok(!text.trimStart().startsWith('{'), 'not JSON');
    assert.match(text, /INFO/);
    assert.match(text, /retrying with whsec_\[redacted\]/);
    assert.ok(!text.includes('SIGVALUE') && !text.includes('SECRETVALUE'));
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

  test('bindings set before the first line join it, without building the child; later ones too', () => {
    const { lines, logger } = capture('info');
    const deferred = deferredChildLogger(logger, { reqId: 'r9' });
    deferred.setBindings({ client: '2001:db8::/64' });
    deferred.info('first');
    deferred.setBindings({ route: '/x' });
    deferred.info('second');
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.deepEqual(
      parsed.map(({ reqId, client, route }) => ({ reqId, client, route })),
      [
        { reqId: 'r9', client: '2001:db8::/64', route: undefined },
        { reqId: 'r9', client: '2001:db8::/64', route: '/x' },
      ],
    );
  });

  test('a route level of its own makes the child at once, at that level', () => {
    const { lines, logger } = capture('info');
    const deferred = deferredChildLogger(logger, { reqId: 'r8' }, { level: 'debug' });
    deferred.debug('shown');
    assert.equal(JSON.parse(lines[0]!).reqId, 'r8');
  });
});
