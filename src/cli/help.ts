// Help texts: the global one, a group's (`help webhooks`) and each command's, from the command table.
import { COMMANDS, type CommandSpec, GLOBAL_OPTIONS, type OptionSpec } from './commands.js';

const EXIT_CODES =
  'Exit codes: 0 done, 1 a check or the work failed, 2 wrong command line, 3 invalid configuration.';

const columns = (rows: [string, string][]) => {
  const width = Math.max(...rows.map(([left]) => left.length)) + 3;
  return rows.map(([left, right]) => `  ${left.padEnd(width)}${right}`).join('\n');
};

const flag = (name: string, spec: OptionSpec) =>
  `${spec.short ? `-${spec.short}, ` : ''}--${name}${spec.value ? ` ${spec.value}` : ''}`;

const usageOf = (c: CommandSpec) => `${c.name}${c.args ? ` ${c.args}` : ''}`;

export function globalHelp(): string {
  return `Usage: vaultkeeper <command> [options]

Commands:
${columns([...COMMANDS.map((c): [string, string] => [usageOf(c), c.summary]), ['help [command]', 'help for a command']])}

Options:
${columns([
  ['-h, --help', 'this help (after a command: that command’s help)'],
  ['-v, --version', 'the version'],
  ['--json', GLOBAL_OPTIONS.json!.description],
])}

Configuration comes from the environment, as for the service (docs/CONFIGURATION.md). Commands that act
as an owner (webhooks create, test and delete, listen, export) call the API with an API key; the others work on
the service's database.
${EXIT_CODES}`;
}

export function groupHelp(group: string): string {
  const members = COMMANDS.filter((c) => c.name.startsWith(`${group} `));
  return `Usage: vaultkeeper ${group} <${members.map((c) => c.name.split(' ')[1]).join('|')}> [options]

Commands:
${columns(members.map((c): [string, string] => [usageOf(c), c.summary]))}

Run \`vaultkeeper help ${group} <command>\` for a command's options.`;
}

export function commandHelp(command: CommandSpec): string {
  const options = { ...command.options, ...GLOBAL_OPTIONS };
  return `Usage: vaultkeeper ${usageOf(command)} [options]

${command.summary[0]!.toUpperCase()}${command.summary.slice(1)}.${command.details ? `\n\n${command.details}` : ''}

Options:
${columns(Object.entries(options).map(([name, spec]): [string, string] => [flag(name, spec), spec.description]))}

${EXIT_CODES}`;
}

/** The help of a topic: null (global), a group word, or a command's name. */
export function helpFor(topic: string | null): string {
  if (topic === null) return globalHelp();
  const command = COMMANDS.find((c) => c.name === topic);
  return command === undefined ? groupHelp(topic) : commandHelp(command);
}
