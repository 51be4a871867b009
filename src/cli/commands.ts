// The command line's grammar: every command with its usage, help text and options, as one table.
// parse-command-line.ts turns argv into one of them; help.ts prints them.
export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  /** The value's placeholder in help (`<address>`). */
  value?: string;
  description: string;
}

export interface CommandSpec {
  /** One or two words: `migrate`, `webhooks list`. */
  name: string;
  /** The arguments after the name, as help shows them. */
  args: string;
  summary: string;
  /** More lines for `help <command>`. */
  details?: string;
  options: Readonly<Record<string, OptionSpec>>;
}

export const GLOBAL_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  json: { type: 'boolean', description: 'one JSON document on stdout instead of lines (no progress)' },
  help: { type: 'boolean', short: 'h', description: 'this help' },
};

const API_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  'api-key': {
    type: 'string',
    value: '<vk_…>',
    description: 'an API key (default: VAULTKEEPER_API_KEY); never printed',
  },
  'api-url': {
    type: 'string',
    value: '<url>',
    description: "the service's base URL (default: VAULTKEEPER_URL, else PUBLIC_BASE_URL)",
  },
};

const API_DETAILS =
  'Acts as the owner through the API with an API key (create one with a wallet signature: POST /api/api-keys, or Authorize on /docs).';
const DATABASE_DETAILS =
  "Works on the service's database directly (the same environment as the service), as an operator.";

const DELIVERY_SELECTION: Readonly<Record<string, OptionSpec>> = {
  webhook: { type: 'string', value: '<id>', description: 'the subscription id' },
  failed: { type: 'boolean', description: 'only deliveries that failed for good (exhausted)' },
  failing: {
    type: 'boolean',
    description: 'only deliveries whose last attempt failed, still retrying or exhausted',
  },
};

export const COMMANDS: readonly CommandSpec[] = [
  {
    name: 'start',
    args: '',
    summary: 'run the service (ROLES chooses api, ingestor, worker)',
    options: {},
  },
  { name: 'migrate', args: '', summary: 'apply the database migrations', options: {} },
  {
    name: 'doctor',
    args: '',
    summary: 'check config, database, Redis, RPC, the program account, SMTP',
    details: 'Exits 0 when every check passes, 1 when one fails, 3 when the configuration is invalid.',
    options: {},
  },
  {
    name: 'backfill',
    args: '--since <signature|date>',
    summary: 'apply the program’s history from that point to now',
    details: DATABASE_DETAILS,
    options: {
      since: {
        type: 'string',
        value: '<signature|date>',
        description: 'a transaction signature, or YYYY-MM-DD / ISO 8601',
      },
    },
  },
  {
    name: 'metrics rebuild',
    args: '--from <day> [--to <day>]',
    summary: 'rebuild daily metrics from the event log (to: today)',
    details: DATABASE_DETAILS,
    options: {
      from: { type: 'string', value: '<YYYY-MM-DD>', description: 'first UTC day' },
      to: { type: 'string', value: '<YYYY-MM-DD>', description: 'last UTC day (default: today)' },
    },
  },
  {
    name: 'webhooks list',
    args: '[--owner <address>]',
    summary: 'every subscription (never its secret)',
    details: DATABASE_DETAILS,
    options: {
      owner: { type: 'string', value: '<address>', description: "only this wallet's subscriptions" },
    },
  },
  {
    name: 'webhooks create',
    args: '--url <url> --events <a,b> [--vault <address>] [--format <format>]',
    summary: 'subscribe a URL to events; prints the signing secret once',
    details: API_DETAILS,
    options: {
      url: { type: 'string', value: '<url>', description: 'the receiver: https:// (or mailto:)' },
      events: { type: 'string', value: '<a,b>', description: 'comma-separated event names' },
      vault: { type: 'string', value: '<address>', description: 'one vault (default: every vault you own)' },
      format: {
        type: 'string',
        value: '<format>',
        description: 'json, slack, discord or telegram (default: detected from the URL)',
      },
      ...API_OPTIONS,
    },
  },
  {
    name: 'webhooks test',
    args: '--webhook <id>',
    summary: 'send a webhook.test event to a subscription',
    details: API_DETAILS,
    options: {
      webhook: { type: 'string', value: '<id>', description: 'the subscription id' },
      ...API_OPTIONS,
    },
  },
  {
    name: 'webhooks delete',
    args: '--webhook <id>',
    summary: 'delete a subscription',
    details: API_DETAILS,
    options: {
      webhook: { type: 'string', value: '<id>', description: 'the subscription id' },
      ...API_OPTIONS,
    },
  },
  {
    name: 'webhooks recover',
    args: '--webhook <id> --since <time>',
    summary: 'send again now every delivery since a time whose last attempt failed',
    details: `${API_DETAILS}
--since is an ISO 8601 date or date-time, or a duration back from now (90m, 6h, 3d); at most 14 days.
Deliveries still retrying and exhausted ones are both sent again; ones being sent now are left to finish.`,
    options: {
      webhook: { type: 'string', value: '<id>', description: 'the subscription id' },
      since: { type: 'string', value: '<time>', description: 'ISO date or time, or 90m, 6h, 3d back' },
      ...API_OPTIONS,
    },
  },
  {
    name: 'deliveries list',
    args: '--webhook <id> [--failed | --failing]',
    summary: 'a subscription’s deliveries, newest first',
    details: DATABASE_DETAILS,
    options: DELIVERY_SELECTION,
  },
  {
    name: 'deliveries retry',
    args: '--webhook <id> [--failed | --failing]',
    summary: 'send them again now (only failed or failing ones with --failed or --failing)',
    details: DATABASE_DETAILS,
    options: DELIVERY_SELECTION,
  },
  {
    name: 'mcp',
    args: '--url <url>',
    summary: 'the MCP server (agents’ tools) on stdio, calling a running service',
    details: `For a desktop agent (Claude Desktop, Cursor, …): its tools call the service at --url over HTTP
with the client package and never open a database. stdout carries the protocol; messages go to stderr.
Configure it as: { "command": "node", "args": ["<checkout>/bin/vaultkeeper.mjs", "mcp", "--url", "https://…"] }
(npx vaultkeeper resolves only inside a checkout until the package is published; docs/AGENTS.md, MCP).`,
    options: {
      url: {
        type: 'string',
        value: '<url>',
        description: "the service's base URL (default: VAULTKEEPER_URL)",
      },
      'agent-keypair': {
        type: 'string',
        value: '<file>',
        description:
          "the agent's Solana CLI key file: adds the send_transfer tool, which signs here (mode 600; refused if others may read it)",
      },
    },
  },
  {
    name: 'agent transfer',
    args: '--vault <address> --to <address> --amount <SOL> --keypair <file> [--url <url>]',
    summary: 'pay from a vault as its agent: checked, built and relayed by the service, signed here',
    details: `The service checks the transfer and builds it; the key file (a Solana CLI key file, mode 600)
signs it in this process, and the service sends it and answers executed, blocked (with the link to ask
the owner's approval) or failed. Exits 0 only when the transfer was paid; 1 when blocked or failed.
Give --idempotency-key and reuse it when retrying: the service answers the first result and pays once.`,
    options: {
      vault: { type: 'string', value: '<address>', description: 'the vault to pay from' },
      to: { type: 'string', value: '<address>', description: 'the destination' },
      amount: { type: 'string', value: '<SOL>', description: 'SOL, up to 9 decimals (0.25)' },
      keypair: { type: 'string', value: '<file>', description: "the agent signer's key file" },
      'idempotency-key': {
        type: 'string',
        value: '<key>',
        description: 'the same key within 24 h answers the first result and sends nothing',
      },
      url: {
        type: 'string',
        value: '<url>',
        description: "the service's base URL (default: VAULTKEEPER_URL)",
      },
    },
  },
  {
    name: 'listen',
    args: '--forward-to <url> [--vault <address>] [--events <a,b>] [--secret <whsec_…>]',
    summary: 'forward live events to a local URL, signed like webhook deliveries',
    details: `${API_DETAILS}
Reads the live feed and POSTs each event of your vaults to the URL with both webhook signatures
(Standard Webhooks and X-Vaultkeeper-Signature), under a whsec_ secret it prints at start (or --secret).
Reconnects when the stream drops and resumes after the last event it read (Last-Event-ID). Ctrl-C stops.`,
    options: {
      'forward-to': {
        type: 'string',
        value: '<url>',
        description: 'where to POST each event (http:// or https://)',
      },
      vault: {
        type: 'string',
        value: '<address>',
        description: 'only this vault (default: every vault you own)',
      },
      events: { type: 'string', value: '<a,b>', description: 'only these event names (comma-separated)' },
      secret: {
        type: 'string',
        value: '<whsec_…>',
        description: 'sign with this secret instead of a new one',
      },
      ...API_OPTIONS,
    },
  },
  exportCommand('transactions', 'executed, blocked or pending'),
  exportCommand('overrides', 'pending, approved, rejected or executed'),
  exportCommand('audit', null),
];

/** `export transactions`, `overrides` and `audit`: the same selection, a file through the service. */
function exportCommand(kind: 'transactions' | 'overrides' | 'audit', statuses: string | null): CommandSpec {
  return {
    name: `export ${kind}`,
    args: '[--vault <address>] [--from <day>] [--to <day>] [--out <file>]',
    summary: `download your ${kind === 'audit' ? 'audit trail' : kind} in a time range as CSV or JSON Lines (streamed)`,
    details: `${API_DETAILS}
--from and --to are UTC days (YYYY-MM-DD; --to's day included) or ISO 8601 instants with an offset
(--to excluded). Without --vault, every vault of the key's owner. The file is written as it arrives to
<file>.part and renamed to <file> once complete; without --out it goes to stdout.`,
    options: {
      vault: { type: 'string', value: '<address>', description: 'one vault (default: every vault you own)' },
      from: {
        type: 'string',
        value: '<day>',
        description: 'first day or instant (default: the first record)',
      },
      to: {
        type: 'string',
        value: '<day>',
        description: 'last day, or the instant to stop at (default: now)',
      },
      ...(statuses === null
        ? {}
        : { status: { type: 'string', value: '<status>', description: `only ${statuses}` } as const }),
      format: { type: 'string', value: '<csv|jsonl>', description: 'csv (default) or jsonl' },
      out: { type: 'string', value: '<file>', description: 'where to write the file (default: stdout)' },
      ...API_OPTIONS,
    },
  };
}
