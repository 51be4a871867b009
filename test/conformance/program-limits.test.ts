// The service states the program's limits once (src/domain/policy/program-limits.ts); the fake
// validator reads the sizes from the IDL and models the window itself. Both must agree.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  MAX_NAME_BYTES as IDL_NAME_BYTES,
  MAX_WHITELIST as IDL_WHITELIST,
} from '../../dev/validator/program-accounts.js';
import { DAY_SECONDS } from '../../dev/validator/vault-rules.js';
import { MAX_NAME_BYTES, MAX_WHITELIST, WINDOW_SECONDS } from '../../src/domain/policy/program-limits.js';

test("the service's program limits are the IDL's array sizes and the validator's window", () => {
  assert.equal(MAX_WHITELIST, IDL_WHITELIST);
  assert.equal(MAX_NAME_BYTES, IDL_NAME_BYTES);
  assert.equal(WINDOW_SECONDS, DAY_SECONDS);
});
