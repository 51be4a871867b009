// `vaultkeeper mcp --url <service>`: the MCP server on stdio for a desktop agent. Its tools call the
// running service over HTTP with the client package; it never opens the database. stdout carries the
// protocol only: every word for a person goes to stderr.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createVaultkeeperClient, VaultkeeperError } from '@vaultkeeper/client';
import { createMcpServer } from '../mcp/mcp-server.js';
import { loadAgentKeypair } from './agent-keypair.js';
import { parseHttpUrl, type Values } from './api-commands.js';
import { CliError, EXIT } from './output.js';

/** The service URL from --url, else VAULTKEEPER_URL; neither is a usage error that says so. */
export function parseMcpUrl(values: Values, envUrl: string | undefined): string {
  const given = typeof values.url === 'string' ? values.url : envUrl;
  if (given === undefined) {
    throw new CliError(
      'mcp needs the service to call: --url <url> (or VAULTKEEPER_URL), e.g. --url https://vaultkeeper.example.com',
      EXIT.usage,
    );
  }
  return parseHttpUrl(given, '--url');
}

/**
 * Serves MCP on stdin/stdout until stdin ends; a service that does not answer stops it at once. With
 * the agent's key file, send_transfer is added: it signs here, and the key never leaves this process.
 */
export async function runMcp(baseUrl: string, version: string, agentKeypair?: string): Promise<number> {
  const agentSigner =
    agentKeypair === undefined ? undefined : await loadAgentKeypair(agentKeypair, '--agent-keypair');
  const client = createVaultkeeperClient({ baseUrl });
  try {
    await client.health({ signal: AbortSignal.timeout(10_000) });
  } catch (error) {
    // An unhealthy service still answers (503 with its health): only silence stops the server.
    if (!(error instanceof VaultkeeperError) || error.status === 0 || error.code.startsWith('HTTP_')) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new CliError(
        `no Vaultkeeper service answers at ${baseUrl}: ${reason}`,
        EXIT.failed,
        'check --url',
      );
    }
  }
  const server = createMcpServer(client, version, agentSigner === undefined ? {} : { agentSigner });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    process.stdin.once('end', resolve);
  });
  await server.connect(transport);
  const paying = agentSigner === undefined ? '' : ` (send_transfer as agent ${agentSigner.address})`;
  process.stderr.write(`vaultkeeper mcp: serving ${baseUrl} on stdio${paying}\n`);
  await closed;
  await server.close();
  return EXIT.ok;
}
