// argv to one command of the table (commands.ts) and its checked values; a mistake is exit 2 with a
// one-line reason, a hint and, for a typo, a suggestion.
import { parseArgs } from 'node:util';
import { COMMANDS, type CommandSpec, GLOBAL_OPTIONS, type OptionSpec } from './commands.js';
import { CliError, EXIT } from './output.js';

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
