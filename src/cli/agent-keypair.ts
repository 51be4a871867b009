// The agent's key for `vaultkeeper agent transfer --keypair` and `vaultkeeper mcp --agent-keypair`: a
// Solana CLI key file (64 numbers: seed ‖ public key), refused when group or others may read it. The key
// signs in this process only; nothing of it is sent or printed.
import { readFile, stat } from 'node:fs/promises';
import { createKeyPairSignerFromBytes, type KeyPairSigner } from '@solana/kit';
import { CliError, EXIT } from './output.js';

export async function loadAgentKeypair(file: string, option: string): Promise<KeyPairSigner> {
  let mode: number;
  try {
    mode = (await stat(file)).mode;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new CliError(`${option} ${file}: cannot read the key file (${code})`, EXIT.usage);
  }
  if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
    throw new CliError(
      `${option} ${file}: the key file may be read by group or others (mode ${(mode & 0o777).toString(8)}); refusing to use it`,
      EXIT.usage,
      `chmod 600 ${file}`,
    );
  }
  const bytes = parseKeypair(await readFile(file, 'utf8'));
  if (bytes === null) {
    throw new CliError(
      `${option} ${file} is not a Solana CLI key file (a JSON array of 64 numbers)`,
      EXIT.usage,
    );
  }
  try {
    return await createKeyPairSignerFromBytes(bytes);
  } catch {
    throw new CliError(`${option} ${file}: its public key does not match its secret key`, EXIT.usage);
  } finally {
    bytes.fill(0);
  }
}

function parseKeypair(text: string): Uint8Array | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  const valid =
    Array.isArray(parsed) &&
    parsed.length === 64 &&
    parsed.every((n) => Number.isInteger(n) && n >= 0 && n <= 255);
  return valid ? Uint8Array.from(parsed as number[]) : null;
}
