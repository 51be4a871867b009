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
Configure it as: { "command": "npx", "args": ["vaultkeeper", "mcp", "--url", "https://…"] } (docs/AGENTS.md, MCP).`,
    options: {
      url: {
        type: 'string',
        value: '<url>',
        description: "the service's base URL (default: VAULTKEEPER_URL)",
      },
    },
  },
  {
    name: 'listen',
    args: '--forward-to <url> [--vault <address>] [--events <a,b>]',
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
];
