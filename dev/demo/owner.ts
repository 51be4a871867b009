// The demo's vault owner: calls the real API with wallet-signed requests, signs the transactions the
// service builds, and sends them to the (simulated) chain, as an owner's wallet would.
import { type Address, getTransactionDecoder } from '@solana/kit';
import { createTestWallet, fetchSigned, type TestWallet } from '../support/wallet.js';

export interface Owner {
  readonly address: Address;
  readonly wallet: TestWallet;
  /** A signed API request; throws with the service's error text unless it answers 2xx. */
  call<T>(method: string, path: string, body?: unknown): Promise<T>;
  /** Signs a transaction the service built (base64 wire format) and sends it; returns its signature. */
  signAndSend(transaction: string): Promise<string>;
}

export function createOwner(baseUrl: string, rpcUrl: string): Owner {
  const wallet = createTestWallet();

  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetchSigned(baseUrl, path, wallet, { method, body });
    const json = (await response.json().catch(() => null)) as { error?: string; code?: string } | null;
    if (!response.ok) {
      throw new Error(
        `${method} ${path} answered ${response.status} ${json?.code ?? ''}: ${json?.error ?? ''}`,
      );
    }
    return json as T;
  }

  async function signAndSend(transaction: string): Promise<string> {
    const wire = Buffer.from(transaction, 'base64');
    const decoded = getTransactionDecoder().decode(wire);
    const index = Object.keys(decoded.signatures).indexOf(wallet.address);
    if (index < 0) throw new Error('the owner is not a signer of this transaction');
    // One-byte signature count (fewer than 128 signers), then 64 bytes per signer in message order.
    wire.set(wallet.sign(new Uint8Array(decoded.messageBytes)), 1 + 64 * index);
    const response = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'sendTransaction',
        params: [wire.toString('base64'), { encoding: 'base64' }],
      }),
    });
    const reply = (await response.json()) as { result?: string; error?: { message: string } };
    if (reply.error !== undefined || reply.result === undefined) {
      throw new Error(`sendTransaction failed: ${reply.error?.message ?? 'no result'}`);
    }
    return reply.result;
  }

  return { address: wallet.address as Address, wallet, call, signAndSend };
}
