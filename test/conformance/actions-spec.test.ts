// Real Action responses of the app satisfy @solana/actions-spec's shapes at run time (the same
// shapes actions-spec-types.ts holds the service's types to at compile time): actions.json, the
// Blink's GET, approve (transaction), reject (sign-message, then its completion) and an error.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Address } from '@solana/kit';
import { getBase58Decoder } from '@solana/kit';
import type { LightMyRequestResponse } from 'fastify';
import { createTestWallet } from '../../dev/support/wallet.js';
import { randomAddress } from '../../dev/validator/scenarios.js';
import { localPath, pressBlinkButton, useConformanceHarness } from '../support/conformance-app.js';
import { SOL } from '../support/ingestion-harness.js';
import {
  checkActionErrorBody,
  checkActionGetResponse,
  checkActionPostResponse,
  checkActionsJson,
  checkCompletedAction,
  checkPostResponse,
  checkSignMessageResponse,
  checkTransactionResponse,
} from './actions-spec-types.js';

const h = useConformanceHarness();

function conforms(check: (value: unknown, path: string) => string[], response: LightMyRequestResponse) {
  const body = response.json();
  assert.deepEqual(check(body, 'body'), [], `${response.body}`);
  return body;
}

/** The sign-message text of Actions 2.4 (SIWS layout), built here from the data the wallet got. */
function messageText(data: Record<string, string>): string {
  const fields = [
    ['Chain ID', data.chainId],
    ['Nonce', data.nonce],
    ['Issued At', data.issuedAt],
  ]
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `${name}: ${value}`);
  return [
    `${data.domain} wants you to sign a message with your account:`,
    data.address,
    '',
    data.statement,
    '',
    ...fields,
  ].join('\n');
}

async function blockedVault() {
  await h.startLive();
  const app = await h.app();
  const owner = createTestWallet();
  const created = await h.fake.createVault({
    authority: owner.address as Address,
    dailyLimit: SOL,
    name: 'Ops',
  });
  await h.fake.airdrop(owner.address as Address, SOL);
  const blocked = await h.blockTransfer(app, created.vault, {
    destination: randomAddress(),
    amount: 2n * SOL,
  });
  return { app, owner, ...blocked };
}

describe('Action responses satisfy the Actions spec shapes', () => {
  test('the checks refuse what the spec does not allow', () => {
    assert.notDeepEqual(checkActionGetResponse({ type: 'action', title: 'x' }, 'body'), []);
    assert.notDeepEqual(
      checkTransactionResponse({ type: 'transaction', transaction: 'not base64!' }, 'body'),
      [],
    );
    assert.notDeepEqual(checkPostResponse({ type: 'post', message: 'ok', extra: 1 }, 'body'), []);
    assert.notDeepEqual(checkSignMessageResponse({ type: 'message', data: 'text', links: {} }, 'body'), []);
    assert.notDeepEqual(checkActionPostResponse({ type: 'completed' }, 'body'), []);
    assert.deepEqual(checkPostResponse({ type: 'post' }, 'body'), []);
  });

  test('actions.json, the Blink, approve and an error', async () => {
    const { app, owner, blinkPath } = await blockedVault();
    conforms(checkActionsJson, await app.inject({ url: '/actions.json' }));

    const { metadata, response: approved } = await pressBlinkButton(
      app,
      blinkPath,
      'transaction',
      owner.address,
    );
    conforms(checkActionGetResponse, metadata);
    conforms(checkActionPostResponse, approved);
    conforms(checkTransactionResponse, approved);

    const missing = await app.inject({ url: `/api/actions/${randomAddress()}/1` });
    assert.equal(missing.statusCode, 404);
    conforms(checkActionErrorBody, missing);
  });

  test('reject: the sign-message response, then the completed action', async () => {
    const { app, owner, blinkPath } = await blockedVault();
    const { response: asked } = await pressBlinkButton(app, blinkPath, 'message', owner.address);
    conforms(checkActionPostResponse, asked);
    const request = conforms(checkSignMessageResponse, asked);

    const data = typeof request.data === 'string' ? request.data : messageText(request.data);
    const signature = getBase58Decoder().decode(owner.sign(data));
    const completed = await app.inject({
      method: 'POST',
      url: localPath(request.links.next.href),
      payload: { account: owner.address, signature, data: request.data, state: request.state },
    });
    assert.equal(completed.statusCode, 200, completed.body);
    conforms(checkCompletedAction, completed);
  });
});
