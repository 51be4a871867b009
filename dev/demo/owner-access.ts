// The demo owner's access, saved so a visitor can act as the owner after the demo started: the wallet's
// key (solana-keygen's JSON format) and an API key, with the commands that use them.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Owner } from './owner.js';

export interface OwnerAccess {
  readonly keypairFile: string;
  readonly envFile: string;
  readonly apiKey: string;
}

/**
 * Writes the owner's wallet key to dataDir (before the service starts: in demo mode the approval page's
 * demo wallet signs with it) and returns the file.
 */
export function saveOwnerKeypair(owner: Owner, dataDir: string): string {
  const keypairFile = join(dataDir, 'owner-keypair.json');
  // Owner-only files: a demo key, but the habit is the right one.
  writeFileSync(keypairFile, `${JSON.stringify([...owner.wallet.secretKey])}\n`, { mode: 0o600 });
  return keypairFile;
}

/** Creates an API key for the owner (a signed request, as anyone would) and writes both keys to dataDir. */
export async function saveOwnerAccess(
  owner: Owner,
  baseUrl: string,
  dataDir: string,
  listenSecret: string,
): Promise<OwnerAccess> {
  const { key } = await owner.call<{ key: string }>('POST', '/api/api-keys', { name: 'demo owner' });
  const keypairFile = saveOwnerKeypair(owner, dataDir);
  const envFile = join(dataDir, 'owner.env');
  writeFileSync(
    envFile,
    `# The demo owner (${owner.address}): \`set -a; . ${envFile}; set +a\`\nVAULTKEEPER_URL=${baseUrl}\nVAULTKEEPER_API_KEY=${key}\n# The secret the demo's receiver verifies \`vaultkeeper listen --secret\` deliveries with\nVAULTKEEPER_LISTEN_SECRET=${listenSecret}\n`,
    { mode: 0o600 },
  );
  return { keypairFile, envFile, apiKey: key };
}

/** What the visitor can run as the owner while the demo runs; each command runs as printed. */
export function ownerAccessLines(
  owner: Owner,
  access: OwnerAccess,
  baseUrl: string,
  receiver: { listenUrl: string; webhookId: string | null },
): string[] {
  const webhook = receiver.webhookId ?? '<id from that list>';
  return [
    '',
    `  Act as the demo owner (${owner.address}), from this directory:`,
    `    wallet key (solana-keygen format)  ${access.keypairFile}`,
    `    API key and URL                    ${access.envFile}`,
    `    set -a; . ${access.envFile}; set +a`,
    '    curl -s -H "Authorization: Bearer $VAULTKEEPER_API_KEY" $VAULTKEEPER_URL/api/webhooks       # the owner\'s webhooks',
    '    npx vaultkeeper webhooks list                                                             # the same, through the CLI',
    `    npx vaultkeeper webhooks test --webhook ${webhook}   # sends a webhook.test delivery`,
    `    npx vaultkeeper listen --forward-to ${receiver.listenUrl} --secret "$VAULTKEEPER_LISTEN_SECRET"   # the live feed, forwarded to the demo's receiver`,
    '    (the first npx vaultkeeper compiles the CLI, a minute or so; listen runs until Ctrl+C and prints',
    '    each event with the receiver\'s answer, 200; this log shows it as "[webhook] listen … signatures ok")',
    `    (the service holds data/demo while it runs: owner commands go through its API at ${baseUrl})`,
    `    Pending approvals of this owner: ${baseUrl}/owners/${owner.address}/approvals`,
    '    The vault and approval pages offer a "Demo wallet" button that signs with this key in the browser',
    '    (DEMO_MODE: this local demo only; a real deployment never serves the key).',
    '',
  ];
}
