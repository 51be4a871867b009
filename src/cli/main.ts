// The `vaultkeeper` command: start the service, or operate on its database and dependencies.
// Exit codes: 0 done, 1 a check or the work failed, 2 the command line is wrong, 3 the configuration is.
// A command's code loads when it runs, so help, --version and a mistyped command answer at once.
import { readFileSync } from 'node:fs';
import { readClientEnvironment } from '../config.js';
import type { Values } from './api-commands.js';
import { helpFor } from './help.js';
import { CliError, createOutput, EXIT, type Output } from './output.js';
import { parseCommandLine } from './parse-command-line.js';

/** The package's version (package.json sits two levels up from src/cli and from dist/cli). */
function version(): string {
  const file = new URL('../../package.json', import.meta.url);
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

type Handler = (values: Values, out: Output) => Promise<number>;

/** A command on the service's database: its module (and the database's) loads when it runs. */
const onDatabase =
  (name: keyof typeof import('./database-commands.js')): Handler =>
  async (values, out) =>
    (await import('./database-commands.js'))[name](values, out);

/** An owner's command through the API: it reads the API URL and key when it first needs them. */
const throughApi =
  (
    name: 'createWebhookCommand' | 'testWebhookCommand' | 'deleteWebhookCommand' | 'recoverWebhookCommand',
  ): Handler =>
  async (values, out) => {
    const [commands, { apiAccess }] = await Promise.all([
      import('./api-commands.js'),
      import('./environment.js'),
    ]);
    return commands[name](values, () => apiAccess(values), out);
  };

/** `export transactions|overrides|audit`: the file through the API. */
const exportThroughApi =
  (kind: 'transactions' | 'overrides' | 'audit'): Handler =>
  async (values, out) => {
    const [{ runExportCommand }, { apiAccess }] = await Promise.all([
      import('./export-command.js'),
      import('./environment.js'),
    ]);
    return runExportCommand(kind, values, () => apiAccess(values), out);
  };

async function listen(values: Values, out: Output): Promise<number> {
  const [{ parseListenSettings, runListen }, { apiAccess }] = await Promise.all([
    import('./listen.js'),
    import('./environment.js'),
  ]);
  const settings = parseListenSettings(values);
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  process.once('SIGTERM', () => controller.abort());
  return runListen(settings, apiAccess(values), out, controller.signal);
}

const HANDLERS: Readonly<Record<string, Handler>> = {
  start: async () => {
    await import('../main.js');
    return EXIT.ok;
  },
  migrate: onDatabase('migrate'),
  doctor: onDatabase('doctor'),
  backfill: onDatabase('backfill'),
  'metrics rebuild': onDatabase('rebuildMetricsCommand'),
  'webhooks list': onDatabase('listWebhooksCommand'),
  'webhooks create': throughApi('createWebhookCommand'),
  'webhooks test': throughApi('testWebhookCommand'),
  'webhooks delete': throughApi('deleteWebhookCommand'),
  'webhooks recover': throughApi('recoverWebhookCommand'),
  'deliveries list': onDatabase('listDeliveriesCommand'),
  'deliveries retry': onDatabase('retryDeliveriesCommand'),
  'export transactions': exportThroughApi('transactions'),
  'export overrides': exportThroughApi('overrides'),
  'export audit': exportThroughApi('audit'),
  listen,
  mcp: async (values) => {
    const { parseMcpUrl, runMcp } = await import('./mcp.js');
    const keypair = typeof values['agent-keypair'] === 'string' ? values['agent-keypair'] : undefined;
    return runMcp(parseMcpUrl(values, readClientEnvironment().apiUrl), version(), keypair);
  },
  'agent transfer': async (values, out) => {
    const { agentTransferCommand } = await import('./agent-commands.js');
    return agentTransferCommand(values, readClientEnvironment().apiUrl, out);
  },
};

function report(error: CliError): number {
  process.stderr.write(
    `vaultkeeper: ${error.message}${error.fix === undefined ? '' : `\n  → ${error.fix}`}\n`,
  );
  return error.exitCode;
}

export async function runCli(argv: string[]): Promise<number> {
  try {
    const parsed = parseCommandLine(argv);
    if (parsed.kind === 'version') {
      process.stdout.write(`vaultkeeper ${version()}\n`);
      return EXIT.ok;
    }
    if (parsed.kind === 'help') {
      process.stdout.write(`${helpFor(parsed.topic)}\n`);
      return EXIT.ok;
    }
    const out = createOutput({ json: parsed.json, stdout: process.stdout, stderr: process.stderr });
    try {
      return await HANDLERS[parsed.command.name]!(parsed.values, out);
    } catch (error) {
      // A wrong value found by the command itself: point at that command's help.
      if (error instanceof CliError && error.exitCode === EXIT.usage && error.fix === undefined) {
        throw new CliError(error.message, EXIT.usage, `see \`vaultkeeper help ${parsed.command.name}\``);
      }
      throw error;
    }
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    return report(error);
  }
}

process.exitCode = await runCli(process.argv.slice(2));
