// The demo wallet of `npm run demo` (only when the service runs with DEMO_MODE): the demo owner's key,
// handed to this page by the demo-only route, signs in the browser, and the page does what a wallet
// does with an Action: POST it with the owner as account, sign, send to the demo's RPC, follow links.next.
import { ApiError, api, type OverrideAddress } from './api.js';
import { h } from './dom.js';
import { buildSignMessageText, decodeBase64, encodeBase58, encodeBase64, fromBase58 } from './encoding.js';
import { type Step, signatureLink } from './override-view.js';
import type { Wallet, WalletAccount } from './wallet-standard.js';

export const DEMO_WALLET_NAME = 'Demo wallet (local demo only)';
const DEMO_WALLET_NOTE =
  "Demo wallet — for this local demo only; it signs with the demo owner's key saved by npm run demo.";

export interface DemoWallet {
  readonly address: string;
  readonly rpcUrl: string;
  sign(bytes: Uint8Array<ArrayBuffer>): Promise<Uint8Array>;
}

/** The demo offer beside the real wallets: one clearly labelled button. */
export function demoWalletOffer(busy: boolean, onUse: () => void): HTMLElement {
  const button = h(
    'button',
    { type: 'button', class: 'button button-demo', disabled: busy, 'data-testid': 'use-demo-wallet' },
    h('span', { class: 'badge badge-demo' }, 'DEMO'),
    busy ? 'Opening the demo wallet…' : 'Use the demo wallet',
  );
  button.addEventListener('click', () => onUse());
  return h(
    'div',
    { class: 'demo-wallet', 'data-testid': 'demo-wallet' },
    button,
    h('p', { class: 'muted' }, DEMO_WALLET_NOTE),
  );
}

async function callJson<T>(url: string, init: RequestInit = {}): Promise<T> {
  const response = await fetch(url, {
    ...init,
    cache: 'no-store',
    headers: { accept: 'application/json', ...(init.body ? { 'content-type': 'application/json' } : {}) },
  });
  const body = (await response.json().catch(() => null)) as Record<string, unknown> | null;
  if (!response.ok) {
    const message = String(body?.message ?? body?.error ?? `The service answered ${response.status}.`);
    const details = (body?.details ?? {}) as Record<string, unknown>;
    throw new ApiError(String(body?.code ?? 'INVALID_RESPONSE'), message, response.status, details);
  }
  return body as T;
}

const PKCS8_ED25519 = [
  0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
];

/** Reads the demo owner's key from the demo-only route and keeps it as a non-extractable WebCrypto key. */
export async function openDemoWallet(): Promise<DemoWallet> {
  const wallet = await callJson<{ address: string; secretKey: number[]; rpcUrl: string }>('/api/demo/wallet');
  const pkcs8 = Uint8Array.from([...PKCS8_ED25519, ...wallet.secretKey.slice(0, 32)]);
  const key = await crypto.subtle.importKey('pkcs8', pkcs8, { name: 'Ed25519' }, false, ['sign']);
  pkcs8.fill(0);
  return {
    address: wallet.address,
    rpcUrl: wallet.rpcUrl,
    sign: async (bytes) => new Uint8Array(await crypto.subtle.sign({ name: 'Ed25519' }, key, bytes)),
  };
}

function readCompactU16(bytes: Uint8Array, offset: number): [value: number, size: number] {
  let value = 0;
  for (let size = 0; size < 3; size += 1) {
    const byte = bytes[offset + size] ?? 0;
    value |= (byte & 0x7f) << (7 * size);
    if ((byte & 0x80) === 0) return [value, size + 1];
  }
  throw new Error('The transaction is malformed.');
}

/** Signs this wallet's slot of a wire transaction; returns the signed wire and the signature. */
async function signTransaction(wallet: DemoWallet, wire: Uint8Array): Promise<Uint8Array> {
  const [count, countSize] = readCompactU16(wire, 0);
  const message = wire.subarray(countSize + 64 * count);
  const headerAt = (message[0] ?? 0) & 0x80 ? 1 : 0; // versioned messages start with a version byte
  const required = message[headerAt] ?? 0;
  const [, keysSize] = readCompactU16(message, headerAt + 3);
  const keysStart = headerAt + 3 + keysSize;
  for (let i = 0; i < Math.min(required, count); i += 1) {
    const key = message.subarray(keysStart + 32 * i, keysStart + 32 * (i + 1));
    if (encodeBase58(key) !== wallet.address) continue;
    const signed = Uint8Array.from(wire);
    signed.set(await wallet.sign(message.slice()), countSize + 64 * i);
    return signed;
  }
  throw new Error('The demo owner is not a signer of this transaction.');
}

/** sendTransaction on the demo's RPC, as a wallet sends: returns the signature (base58). */
async function sendTransaction(rpcUrl: string, wire: Uint8Array): Promise<string> {
  const reply = await callJson<{ result?: string; error?: { message?: string } }>(rpcUrl, {
    method: 'POST',
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'sendTransaction',
      params: [encodeBase64(wire), { encoding: 'base64', preflightCommitment: 'confirmed' }],
    }),
  });
  if (reply.result === undefined) throw new Error(`The RPC refused the transaction: ${reply.error?.message}`);
  return reply.result;
}

/**
 * The demo wallet as a Wallet Standard wallet, for the owner console: connect, sign and send a
 * transaction (to the demo's RPC), sign a message (the console's signed requests).
 */
export function demoStandardWallet(demo: DemoWallet, cluster: string): Wallet {
  const chain = `solana:${cluster}`;
  const account: WalletAccount = {
    address: demo.address,
    publicKey: fromBase58(demo.address) ?? new Uint8Array(),
    chains: [chain],
    features: ['solana:signAndSendTransaction', 'solana:signMessage'],
  };
  return {
    version: '1.0.0',
    name: DEMO_WALLET_NAME,
    icon: '',
    chains: [chain],
    accounts: [account],
    features: {
      'standard:connect': { connect: async () => ({ accounts: [account] }) },
      'solana:signAndSendTransaction': {
        signAndSendTransaction: async (input: { transaction: Uint8Array }) => {
          const signed = await signTransaction(demo, input.transaction);
          const signature = fromBase58(await sendTransaction(demo.rpcUrl, signed));
          if (signature === null) throw new Error('The RPC answered with a malformed signature.');
          return [{ signature }];
        },
      },
      'solana:signMessage': {
        signMessage: async (input: { message: Uint8Array<ArrayBuffer> }) => [
          { signedMessage: input.message, signature: await demo.sign(input.message) },
        ],
      },
    },
  };
}

interface Completed {
  type: 'completed';
  title: string;
  description: string;
}

/** Action chaining: POST to the service's links.next, as a wallet does. */
const followNext = (next: { href: string }, body: unknown) =>
  callJson<Completed>(next.href, { method: 'POST', body: JSON.stringify(body) });

type Advance = (detail?: Node | string) => void;

/** A decision the page runs through its steps: the steps shown, then the work that advances them. */
export interface DemoDecision {
  steps: Step[];
  work(advance: Advance): Promise<void>;
}

/** Approve as a wallet does: the Action's transaction, signed here, sent to the RPC, then links.next. */
export function approveWithDemoWallet(
  wallet: DemoWallet,
  at: OverrideAddress,
  cluster: string,
): DemoDecision {
  return {
    steps: [
      { label: 'Prepare the approval transaction (POST the Action as the demo owner)', status: 'active' },
      { label: 'Sign it with the demo wallet, in this page', status: 'todo' },
      { label: "Sent to the demo's RPC", status: 'todo' },
      { label: 'Confirmed with the service (the Action’s links.next)', status: 'todo' },
      { label: 'Approved and executed on-chain', status: 'todo', detail: 'waiting for the chain’s events…' },
    ],
    async work(advance) {
      const action = await api.approve(at, wallet.address);
      advance();
      const signed = await signTransaction(wallet, decodeBase64(action.transaction));
      advance();
      const signature = await sendTransaction(wallet.rpcUrl, signed);
      advance(signatureLink(signature, cluster));
      const completed = await followNext(action.links.next, { account: wallet.address, signature });
      advance(completed.description);
    },
  };
}

/** Reject as a wallet does: the Action's message, signed here, posted to links.next. */
export function rejectWithDemoWallet(wallet: DemoWallet, at: OverrideAddress): DemoDecision {
  return {
    steps: [
      { label: 'Prepare the rejection (POST the Action as the demo owner)', status: 'active' },
      { label: 'Sign the rejection message with the demo wallet, in this page', status: 'todo' },
      { label: 'Rejected', status: 'todo', detail: 'waiting for the service…' },
    ],
    async work(advance) {
      const request = await api.reject(at, wallet.address);
      advance();
      if (request.type !== 'message') throw new Error('The service did not ask for a signed message.');
      const text = new TextEncoder().encode(buildSignMessageText(request.data));
      const completed = await followNext(request.links.next, {
        account: wallet.address,
        signature: encodeBase58(await wallet.sign(text)),
        data: request.data,
        state: request.state,
      });
      advance(completed.description);
    },
  };
}
