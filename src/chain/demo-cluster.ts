// DEMO_MODE's ledger checks on the wire (the rule is in domain/demo/demo-guard.ts): getGenesisHash on one
// endpoint, and a re-check whenever a connection to an endpoint is established again.
import { createSolanaRpc } from '@solana/kit';
import type { DemoGuard } from '../domain/demo/demo-guard.js';
import type { RpcEndpoints } from './rpc-endpoints.js';

const LOOKUP_TIMEOUT_MS = 10_000;

/** getGenesisHash on exactly this endpoint. */
export async function readGenesisHash(rpcUrl: string): Promise<string> {
  return createSolanaRpc(rpcUrl)
    .getGenesisHash()
    .send({ abortSignal: AbortSignal.timeout(LOOKUP_TIMEOUT_MS) });
}

/**
 * Re-checks an endpoint's ledger each time a connection to it is established again: a WebSocket
 * subscription (re)connecting, or HTTP calls answering after failures. Returns the unsubscribe.
 */
export function watchDemoLedger(
  rpcEndpoints: Pick<RpcEndpoints, 'onConnection'>,
  guard: DemoGuard,
): () => void {
  return rpcEndpoints.onConnection((endpoint) => void guard.recheck(endpoint.rpcUrl));
}
