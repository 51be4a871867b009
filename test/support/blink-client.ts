// Dialect's Blink client (@dialectlabs/blinks-core), headless: its own URL unfurling, Action fetch and
// BlinkContainer execution path, rendered with React's test renderer, and a wallet adapter that signs
// with a test key and sends to the fake validator. Nothing of the client is reimplemented here.
import {
  type BaseBlinkLayoutProps,
  type BlinkAdapter,
  BlinkContainer,
  BlinkInstance,
  createSignMessageText,
  unfurlUrlToBlinkApiUrl,
} from '@dialectlabs/blinks-core';
import { getBase58Decoder } from '@solana/kit';
import { createElement } from 'react';
import { act, create, type ReactTestRenderer } from 'react-test-renderer';
import type { TestWallet } from '../../dev/support/wallet.js';
import { decodeTransactionBase64 } from '../../src/chain/solana-transactions.js';
import { waitFor } from './wait.js';

// The renderer runs outside a test framework that wraps updates in act(): let React schedule them.
(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = false;
// Everything a test serves is on 127.0.0.1, which the client never sends through Dialect's proxy.

const base58 = getBase58Decoder();

export interface WalletLog {
  /** Signatures of the transactions the wallet sent. */
  sent: string[];
  /** Texts the wallet signed as messages. */
  signedMessages: string[];
}

/** A wallet as Dialect's adapter interface sees it: signs with the test key, sends to the validator. */
export function createTestBlinkAdapter(
  wallet: TestWallet,
  options: { rpcUrl: string; blockchainId: string },
): BlinkAdapter & { log: WalletLog } {
  const log: WalletLog = { sent: [], signedMessages: [] };
  const rpc = async <T>(method: string, params: unknown[]): Promise<T> => {
    const res = await fetch(options.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const body = (await res.json()) as { result?: T; error?: { message: string } };
    if (body.error !== undefined) throw new Error(body.error.message);
    return body.result as T;
  };
  return {
    log,
    metadata: { supportedBlockchainIds: [options.blockchainId] },
    connect: async () => wallet.address,
    async signTransaction(transaction) {
      const wire = Buffer.from(transaction, 'base64');
      const signature = wallet.sign(decodeTransactionBase64(transaction).messageBytes);
      wire.set(signature, 1);
      try {
        const sent = await rpc<string>('sendTransaction', [wire.toString('base64'), { encoding: 'base64' }]);
        log.sent.push(sent);
        return { signature: sent };
      } catch (error) {
        return { error: (error as Error).message };
      }
    },
    async confirmTransaction(signature) {
      await waitFor(
        async () => {
          const { value } = await rpc<{ value: ({ err: unknown; confirmationStatus: string } | null)[] }>(
            'getSignatureStatuses',
            [[signature]],
          );
          const status = value[0];
          if (status?.err) throw new Error(`transaction failed: ${JSON.stringify(status.err)}`);
          return status?.confirmationStatus === 'confirmed' || status?.confirmationStatus === 'finalized';
        },
        { timeoutMs: 10_000, message: `confirmation of ${signature}` },
      );
    },
    async signMessage(data) {
      const text = typeof data === 'string' ? data : createSignMessageText(data);
      log.signedMessages.push(text);
      return { signature: base58.decode(wallet.sign(text)) };
    },
  };
}

export interface BlinkRun {
  /** The Blink API URL the client unfurled the given URL to. */
  apiUrl: string;
  /** The execution status BlinkContainer reports once the click settled. */
  status: BaseBlinkLayoutProps['executionStatus'];
  caption: BaseBlinkLayoutProps['caption'];
  /** The Blink shown after the click (a `completed` one after a chained action). */
  blink: BlinkInstance;
}

/**
 * Opens a URL the way a wallet or X does (unfurl through actions.json, fetch the Action, render it),
 * then clicks the button with this label and waits until the container settles.
 */
export async function clickBlinkButton(url: string, label: string, adapter: BlinkAdapter): Promise<BlinkRun> {
  const apiUrl = await unfurlUrlToBlinkApiUrl(url);
  if (apiUrl === null) throw new Error(`${url} does not unfurl to a Blink`);
  const blink = await BlinkInstance.fetch(apiUrl);
  let latest: BaseBlinkLayoutProps | undefined;
  const Layout = (props: BaseBlinkLayoutProps) => {
    latest = props;
    return null;
  };
  let renderer: ReactTestRenderer | undefined;
  await act(async () => {
    renderer = create(createElement(BlinkContainer, { blink, adapter, securityLevel: 'all', Layout }));
  });
  try {
    const ready = await waitFor(() => (latest?.executionStatus === 'idle' ? latest : undefined), {
      message: 'the Blink checked its supportability',
    });
    const button = ready.blink.actions.find((component) => component.label === label);
    if (button === undefined) throw new Error(`no "${label}" button on ${apiUrl}`);
    await act(async () => {
      await ready.executeFn(button);
    });
    const settled = await waitFor(
      () => (latest && latest.executionStatus !== 'executing' ? latest : undefined),
      { message: 'the click settled' },
    );
    return { apiUrl, status: settled.executionStatus, caption: settled.caption, blink: settled.blink };
  } finally {
    await act(async () => renderer?.unmount());
  }
}

/** What the client shows for a URL before any click: title, description, buttons, disabled. */
export async function fetchBlink(url: string): Promise<{ apiUrl: string; blink: BlinkInstance }> {
  const apiUrl = await unfurlUrlToBlinkApiUrl(url);
  if (apiUrl === null) throw new Error(`${url} does not unfurl to a Blink`);
  return { apiUrl, blink: await BlinkInstance.fetch(apiUrl) };
}
