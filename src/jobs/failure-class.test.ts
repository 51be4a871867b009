import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyFailure } from './failure-class.js';

const withCode = (code: string, message = 'boom 10.0.0.1:8443') =>
  Object.assign(new Error(message), { code });

describe('failure classes', () => {
  it('names the class from the error code (or its cause), never from the text', () => {
    assert.equal(classifyFailure(withCode('ECONNREFUSED'), false), 'refused');
    assert.equal(
      classifyFailure(new Error('fetch failed', { cause: withCode('ECONNRESET') }), false),
      'reset',
    );
    assert.equal(classifyFailure(withCode('UND_ERR_CONNECT_TIMEOUT'), false), 'timeout');
    assert.equal(classifyFailure(withCode('ENOTFOUND'), false), 'dns');
    assert.equal(classifyFailure(withCode('VK_ADDRESS_REFUSED'), false), 'blocked_address');
    assert.equal(classifyFailure(withCode('ERR_TLS_CERT_ALTNAME_INVALID'), false), 'tls');
    assert.equal(classifyFailure(withCode('DEPTH_ZERO_SELF_SIGNED_CERT'), false), 'tls');
    assert.equal(classifyFailure(withCode('EHOSTUNREACH'), false), 'unreachable');
    assert.equal(classifyFailure(new Error('anything at all'), false), 'connection_error');
    assert.equal(classifyFailure(withCode('ECONNREFUSED'), true), 'timeout');
  });
});
