// `vaultkeeper agent transfer`: the agent pays from its vault through a running service. The service
// checks and builds the transfer, the key file signs it here (its key never leaves this process), and
// the service relays it and answers executed, blocked (with the approval link) or failed.
import { createVaultkeeperClient, formatSol, VaultkeeperError } from '@vaultkeeper/client';
import { isSolanaAddress } from '../lib/address.js';
import { loadAgentKeypair } from './agent-keypair.js';
import { parseHttpUrl, text, type Values } from './api-commands.js';
import { CliError, EXIT, type Output } from './output.js';

const LAMPORTS_PER_SOL = 1_000_000_000n;

/** `--amount` in SOL (up to 9 decimals) as exact lamports, or exit 2. */
export function parseSolAmount(value: string | undefined): bigint {
  const match = value === undefined ? null : /^(\d{1,11})(?:\.(\d{1,9}))?$/.exec(value);
  if (match === null) {
    throw new CliError('--amount must be SOL with up to 9 decimals, e.g. --amount 0.25', EXIT.usage);
  }
  const lamports = BigInt(match[1] ?? '0') * LAMPORTS_PER_SOL + BigInt((match[2] ?? '').padEnd(9, '0'));
  if (lamports === 0n) throw new CliError('--amount must be more than 0', EXIT.usage);
  return lamports;
}

function requireAddress(values: Values, name: string): string {
  const value = text(values, name);
  if (value === undefined || !isSolanaAddress(value)) {
    throw new CliError(`--${name} must be a base58 address`, EXIT.usage);
  }
  return value;
}

/** agent transfer --vault --to --amount --keypair [--url] [--idempotency-key]. */
export async function agentTransferCommand(values: Values, envUrl: string | undefined, out: Output) {
  const vault = requireAddress(values, 'vault');
  const destination = requireAddress(values, 'to');
  const amount = parseSolAmount(text(values, 'amount'));
  const keypair = text(values, 'keypair');
  if (keypair === undefined)
    throw new CliError('--keypair <file> is required (a Solana CLI key file)', EXIT.usage);
  const given = text(values, 'url') ?? envUrl;
  if (given === undefined) throw new CliError('--url <url> (or VAULTKEEPER_URL) is required', EXIT.usage);
  const baseUrl = parseHttpUrl(given, '--url');
  const signer = await loadAgentKeypair(keypair, '--keypair');
  const key = text(values, 'idempotency-key');
  const client = createVaultkeeperClient({ baseUrl });
  let outcome: Awaited<ReturnType<typeof client.agents.transfer>>;
  try {
    outcome = await client.agents.transfer({
      vault,
      destination,
      amount,
      signer,
      ...(key === undefined ? {} : { idempotencyKey: key }),
    });
  } catch (error) {
    if (!(error instanceof VaultkeeperError)) throw error;
    throw new CliError(`${error.status} ${error.code}: ${error.message}`, EXIT.failed);
  }
  out.result(outcome);
  const what = `${formatSol(amount)} SOL to ${destination}`;
  if (outcome.status === 'executed') out.line(`executed: ${what} (${outcome.signature})`);
  else if (outcome.status === 'failed') out.line(`failed: ${what}: ${outcome.reason} (${outcome.signature})`);
  else {
    out.line(`blocked (${outcome.reason}): ${what} (${outcome.signature})`);
    if (outcome.approval) out.line(`ask the owner to approve: ${outcome.approval.approvalUrl}`);
  }
  // Only a paid transfer is success: a script must not carry on past a block as if it had paid.
  return outcome.status === 'executed' ? EXIT.ok : EXIT.failed;
}
