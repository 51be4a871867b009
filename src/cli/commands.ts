// The command line's grammar: every command with its usage, help text and options, and the parsing that
// turns argv into one command and its checked values (exit 2 with a one-line reason and a hint otherwise).
import { parseArgs } from 'node:util';
import { CliError, EXIT } from './output.js';

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

/** Words that start two-word commands. */
const GROUPS = [...new Set(COMMANDS.filter((c) => c.name.includes(' ')).map((c) => c.name.split(' ')[0]!))];

/** Levenshtein distance, for "did you mean". */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i += 1) {
    let previous = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j += 1) {
      const current = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length]!;
}

/** The closest of `candidates` to `given`, when it is close enough to be a typo. */
export function closest(given: string, candidates: readonly string[]): string | undefined {
  // A start of a name (`--forward` for `--forward-to`) is a typo too.
  const started = given.length >= 3 ? candidates.filter((c) => c.startsWith(given)) : [];
  if (started.length === 1) return started[0];
  const ranked = candidates
    .map((c) => ({ c, d: distance(given.toLowerCase(), c.toLowerCase()) }))
    .sort((x, y) => x.d - y.d);
  const best = ranked[0];
  return best !== undefined && best.d <= Math.max(2, Math.floor(given.length / 3)) ? best.c : undefined;
}

const didYouMean = (given: string, candidates: readonly string[]) => {
  const match = closest(given, candidates);
  return match === undefined ? '' : ` (did you mean "${match}"?)`;
};

export type Parsed =
  | { kind: 'version' }
  | { kind: 'help'; topic: string | null }
  | {
      kind: 'run';
      command: CommandSpec;
      values: Record<string, string | boolean | undefined>;
      json: boolean;
    };

/** Finds the command the leading words name; a group word alone or with an unknown second word is an error. */
function findCommand(words: string[]): { command: CommandSpec; rest: string[] } {
  const [first, second] = words;
  if (first === undefined) throw new CliError('no command given', EXIT.usage, 'see `vaultkeeper --help`');
  const two = COMMANDS.find((c) => c.name === `${first} ${second}`);
  if (two) return { command: two, rest: words.slice(2) };
  const one = COMMANDS.find((c) => c.name === first);
  if (one) return { command: one, rest: words.slice(1) };
  if (GROUPS.includes(first)) {
    const subs = COMMANDS.filter((c) => c.name.startsWith(`${first} `)).map((c) => c.name.split(' ')[1]!);
    const what =
      second === undefined ? `"${first}" needs a subcommand` : `unknown subcommand "${first} ${second}"`;
    throw new CliError(
      `${what}${second === undefined ? '' : didYouMean(second, subs)}: one of ${subs.join(', ')}`,
      EXIT.usage,
      `see \`vaultkeeper help ${first}\``,
    );
  }
  const names = [...new Set(COMMANDS.map((c) => c.name.split(' ')[0]!)), 'help'];
  throw new CliError(
    `unknown command "${first}"${didYouMean(first, names)}`,
    EXIT.usage,
    'see `vaultkeeper --help`',
  );
}

/** A known topic for `help`: a command, or a group word. */
export function isHelpTopic(topic: string): boolean {
  return COMMANDS.some((c) => c.name === topic) || GROUPS.includes(topic);
}

/** argv to one command and its values; every mistake is a CliError with exit code 2. */
export function parseCommandLine(argv: readonly string[]): Parsed {
  const flagsAt = argv.findIndex((a) => a.startsWith('-'));
  const words = flagsAt === -1 ? [...argv] : argv.slice(0, flagsAt);
  const flags = flagsAt === -1 ? [] : argv.slice(flagsAt);
  if (words.length === 0 && (flags.includes('--version') || flags.includes('-v'))) return { kind: 'version' };
  if (words[0] === 'help') {
    const topic = words.slice(1).join(' ');
    if (topic !== '' && !isHelpTopic(topic)) findCommand(words.slice(1));
    return { kind: 'help', topic: topic === '' ? null : topic };
  }
  if (words.length === 0 && (flags.includes('--help') || flags.includes('-h')))
    return { kind: 'help', topic: null };
  if (
    GROUPS.includes(words[0] ?? '') &&
    words.length === 1 &&
    (flags.includes('--help') || flags.includes('-h'))
  )
    return { kind: 'help', topic: words[0]! };
  const { command, rest } = findCommand(words);
  const options = { ...GLOBAL_OPTIONS, ...command.options };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: [...rest, ...flags], options, allowPositionals: true, strict: true });
  } catch (error) {
    throw optionError(error as Error & { code?: string }, command, options);
  }
  if (parsed.values.help === true) return { kind: 'help', topic: command.name };
  const extra = parsed.positionals[0];
  if (extra !== undefined)
    throw new CliError(
      `unexpected argument "${extra}"`,
      EXIT.usage,
      `see \`vaultkeeper help ${command.name}\``,
    );
  const { json, help: _help, ...values } = parsed.values as Record<string, string | boolean | undefined>;
  return { kind: 'run', command, values, json: json === true };
}

/** node:util's parse errors as one line naming the option, with a suggestion for a typo. */
function optionError(
  error: Error & { code?: string },
  command: CommandSpec,
  options: Record<string, OptionSpec>,
): CliError {
  const hint = `see \`vaultkeeper help ${command.name}\``;
  const named = /'(-{1,2}[^' ]+)/.exec(error.message)?.[1] ?? '';
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const flag = named.replace(/^-+/, '').split('=')[0]!;
    return new CliError(
      `unknown option "${named}" for "${command.name}"${didYouMean(flag, Object.keys(options)).replace('"', '"--')}`,
      EXIT.usage,
      hint,
    );
  }
  if (error.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const flag = named.replace(/^-+/, '').split(' ')[0]!;
    const spec = options[flag] ?? Object.values(options).find((o) => `-${o.short}` === named);
    const needs = spec?.type === 'string' ? `needs a value ${spec.value ?? ''}`.trim() : 'takes no value';
    return new CliError(`option "${named}" ${needs}`, EXIT.usage, hint);
  }
  return new CliError(error.message.split('\n')[0]!, EXIT.usage, hint);
}
