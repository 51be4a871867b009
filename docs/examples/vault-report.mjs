// An owner's morning report with the package's client (@vaultkeeper/client): each vault with today's
// spending and its pending overrides, then each webhook with its failed deliveries. Run:
//   VAULTKEEPER_URL=https://vaultkeeper.example.com KEYPAIR=~/.config/solana/id.json node vault-report.mjs
// VAULTKEEPER_URL is the service's PUBLIC_BASE_URL; KEYPAIR is a solana-keygen JSON file (64 numbers).
import { readFileSync } from 'node:fs';
import { createVaultkeeperClient, fromSecretKey } from '@vaultkeeper/client';

const sol = (lamports) => `${(Number(lamports) / 1e9).toFixed(3)} SOL`;

/** The report's lines for the signer's vaults and webhooks; every list is read across all its pages. */
export async function report(client, owner, { signal } = {}) {
  const lines = [];
  for await (const vault of client.vaults.all({ owner }, { signal })) {
    const detail = await client.vaults.get(vault.address, { signal });
    lines.push(
      `${detail.name} ${detail.address}: ${sol(detail.spentToday)} of ${sol(detail.dailyLimit)} today`,
    );
    for await (const override of client.overrides.all(
      { vault: vault.address, status: 'pending' },
      { signal },
    )) {
      lines.push(
        `  waiting for you: ${sol(override.amount)} to ${override.destination} ${override.approvalUrl}`,
      );
    }
  }
  for await (const webhook of client.webhooks.all({}, { signal })) {
    const failed = await client.webhooks.deliveries(webhook.id, { status: 'failed', limit: 1 }, { signal });
    lines.push(
      `webhook ${webhook.url}: ${webhook.active ? 'active' : 'disabled'}, ${failed.pagination.total} failed`,
    );
  }
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { VAULTKEEPER_URL, KEYPAIR } = process.env;
  if (!VAULTKEEPER_URL || !KEYPAIR)
    throw new Error('Set VAULTKEEPER_URL and KEYPAIR (see the top of this file)');
  const signer = await fromSecretKey(Uint8Array.from(JSON.parse(readFileSync(KEYPAIR, 'utf8'))));
  const client = createVaultkeeperClient({ baseUrl: VAULTKEEPER_URL, signer });
  for (const line of await report(client, signer.address)) console.log(line);
}
