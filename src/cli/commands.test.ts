// The command line's grammar: every way to ask for help, and every mistake as exit 2 with a reason, a
// hint and, for a typo, a suggestion.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseRecoverSince } from './api-commands.js';
import { COMMANDS } from './commands.js';
import { helpFor } from './help.js';
import { parseListenSettings } from './listen.js';
import { CliError, EXIT } from './output.js';
import { closest, parseCommandLine } from './parse-command-line.js';

function refusal(argv: string[]): CliError {
  try {
    parseCommandLine(argv);
  } catch (error) {
    assert.ok(error instanceof CliError, String(error));
    return error;
  }
  assert.fail(`${argv.join(' ')} was accepted`);
}

test('--version and -v ask for the version; -h, --help and help ask for help, globally and per command', () => {
  assert.deepEqual(parseCommandLine(['--version']), { kind: 'version' });
  assert.deepEqual(parseCommandLine(['-v']), { kind: 'version' });
  for (const argv of [['-h'], ['--help'], ['help']])
    assert.deepEqual(parseCommandLine(argv), { kind: 'help', topic: null });
  for (const argv of [
    ['webhooks', '--help'],
    ['webhooks', '-h'],
    ['help', 'webhooks'],
  ]) {
    assert.deepEqual(parseCommandLine(argv), { kind: 'help', topic: 'webhooks' });
  }
  for (const command of COMMANDS) {
    const words = command.name.split(' ');
    for (const argv of [
      [...words, '--help'],
      [...words, '-h'],
      ['help', ...words],
    ]) {
      assert.deepEqual(parseCommandLine(argv), { kind: 'help', topic: command.name }, argv.join(' '));
    }
    const text = helpFor(command.name);
    assert.ok(text.startsWith(`Usage: vaultkeeper ${command.name}`), text);
    for (const option of Object.keys(command.options))
      assert.ok(text.includes(`--${option}`), `${command.name}: --${option}`);
  }
  assert.match(helpFor('webhooks'), /webhooks create --url <url> --events <a,b>/);
  assert.match(helpFor(null), /^Usage: vaultkeeper <command> \[options\]/);
});

test('a command, its values and --json', () => {
  const parsed = parseCommandLine(['webhooks', 'list', '--owner', 'abc', '--json']);
  assert.equal(parsed.kind, 'run');
  if (parsed.kind !== 'run') return;
  assert.equal(parsed.command.name, 'webhooks list');
  assert.deepEqual(parsed.values, { owner: 'abc' });
  assert.equal(parsed.json, true);
  const listen = parseCommandLine([
    'listen',
    '--forward-to=http://localhost:4000/',
    '--events',
    'vault.paused',
  ]);
  assert.equal(listen.kind === 'run' && listen.values['forward-to'], 'http://localhost:4000/');
});

test('every mistake is exit 2 with one line, a hint, and a suggestion for a typo', () => {
  const cases: [string[], RegExp][] = [
    [[], /^no command given$/],
    [['lisen'], /^unknown command "lisen" \(did you mean "listen"\?\)$/],
    [['webhook', 'list'], /^unknown command "webhook" \(did you mean "webhooks"\?\)$/],
    [['webhooks'], /^"webhooks" needs a subcommand: one of list, create, test, delete, recover$/],
    [['webhooks', 'lst'], /^unknown subcommand "webhooks lst" \(did you mean "list"\?\)/],
    [['metrics', 'shrink'], /^unknown subcommand "metrics shrink"/],
    [
      ['webhooks', 'list', '--ownr', 'x'],
      /^unknown option "--ownr" for "webhooks list" \(did you mean "--owner"\?\)$/,
    ],
    [
      ['listen', '--forward', 'x'],
      /^unknown option "--forward" for "listen" \(did you mean "--forward-to"\?\)$/,
    ],
    [['webhooks', 'list', '--owner'], /^option "--owner" needs a value <address>$/],
    [['deliveries', 'list', '--failed=yes'], /^option "--failed" takes no value$/],
    [['doctor', 'extra'], /^unexpected argument "extra"$/],
    [['migrate', '--bogus'], /^unknown option "--bogus" for "migrate"$/],
    [['help', 'nope'], /^unknown command "nope"$/],
  ];
  for (const [argv, message] of cases) {
    const error = refusal(argv);
    assert.equal(error.exitCode, EXIT.usage, argv.join(' '));
    assert.match(error.message, message, argv.join(' '));
    assert.ok(!error.message.includes('\n'), 'one line');
    assert.match(error.fix ?? '', /^see `vaultkeeper (help [a-z ]+|--help)`$/, argv.join(' '));
  }
});

test('suggestions only for near misses', () => {
  assert.equal(closest('lisen', ['listen', 'migrate']), 'listen');
  assert.equal(closest('TransactionExecutd', ['TransactionExecuted', 'VaultPaused']), 'TransactionExecuted');
  assert.equal(closest('zzzzzz', ['listen', 'migrate']), undefined);
});

test('recover --since takes an ISO date or time as is, or a duration back from now', () => {
  const now = new Date('2026-11-25T12:00:00.000Z');
  assert.equal(parseRecoverSince('90m', now), '2026-11-25T10:30:00.000Z');
  assert.equal(parseRecoverSince('6h', now), '2026-11-25T06:00:00.000Z');
  assert.equal(parseRecoverSince('3d', now), '2026-11-22T12:00:00.000Z');
  assert.equal(parseRecoverSince('2026-11-20', now), '2026-11-20');
  assert.equal(parseRecoverSince('2026-11-20T08:00:00Z', now), '2026-11-20T08:00:00Z');
  assert.throws(
    () => parseRecoverSince(undefined, now),
    (error) =>
      error instanceof CliError && error.exitCode === EXIT.usage && /--since <time>/.test(error.message),
  );
  const parsed = parseCommandLine(['webhooks', 'recover', '--webhook', 'x', '--since', '6h']);
  assert.ok(parsed.kind === 'run');
  assert.deepEqual([parsed.command.name, parsed.values.since], ['webhooks recover', '6h']);
});

test('listen --events takes the webhooks names; a program name is refused with the feed name suggested', () => {
  const settings = parseListenSettings({
    'forward-to': 'http://localhost:4000/hooks',
    events: 'transaction.executed,policy.updated,program.unknown',
  });
  assert.deepEqual(settings.events, ['transaction.executed', 'policy.updated', 'program.unknown']);
  assert.throws(
    () => parseListenSettings({ 'forward-to': 'http://localhost:4000/', events: 'TransactionExecuted' }),
    (error) =>
      error instanceof CliError &&
      error.exitCode === EXIT.usage &&
      error.message === 'unknown event "TransactionExecuted" (did you mean "transaction.executed"?)' &&
      /^events: transaction\.executed, /.test(error.fix ?? ''),
  );
  assert.throws(
    () => parseListenSettings({ 'forward-to': 'http://localhost:4000/', events: 'transaction.execute' }),
    (error) => error instanceof CliError && /did you mean "transaction\.executed"/.test(error.message),
  );
});

test('export transactions, overrides and audit take a selection and --out; the group has its help', () => {
  const parsed = parseCommandLine([
    'export',
    'transactions',
    '--from',
    '2026-11-01',
    '--to',
    '2026-11-30',
    '--format',
    'jsonl',
    '--out',
    'nov.jsonl',
  ]);
  assert.ok(parsed.kind === 'run');
  assert.equal(parsed.command.name, 'export transactions');
  assert.deepEqual(
    [parsed.values.from, parsed.values.to, parsed.values.format, parsed.values.out],
    ['2026-11-01', '2026-11-30', 'jsonl', 'nov.jsonl'],
  );
  assert.match(helpFor('export'), /^Usage: vaultkeeper export <transactions\|overrides\|audit>/);
  assert.match(helpFor('export overrides'), /--status <status>/);
  assert.doesNotMatch(helpFor('export audit'), /--status/);
  assert.match(refusal(['export', 'audit', '--status', 'ok']).message, /--status/);
  assert.match(refusal(['export', 'transactions', '--outt', 'x']).message, /did you mean "--out"/);
});
