import { type Logger, pino } from 'pino';
import type pinoPretty from 'pino-pretty';
import { loadOnUse } from './load-on-use.js';
import { applyReplacements } from './url-redaction.js';

/** Request headers that authenticate a caller or sign a payload: never logged. */
const SECRET_HEADERS = [
  'x-signature',
  'x-message',
  'authorization',
  'cookie',
  'set-cookie',
  'webhook-signature',
  'x-vaultkeeper-signature',
];

/** Keys whose value is a secret wherever they sit (up to two levels deep; deeper values are scrubbed by shape). */
const SECRET_KEYS = [
  'secret',
  'previousSecret',
  'privateKey',
  'secretKey',
  'keypair',
  'password',
  'signature',
];

/**
 * Paths that must never reach a log line: signature headers, signed messages, secrets, keys.
 * Chain transaction signatures are public: log them under `tx`, not `signature` (which is redacted).
 */
const REDACTED_PATHS = [
  ...SECRET_HEADERS.flatMap((h) => [`headers["${h}"]`, `*.headers["${h}"]`, `*.*.headers["${h}"]`]),
  ...SECRET_KEYS.flatMap((k) => [k, `*.${k}`, `*.*.${k}`]),
];

const CENSOR = '[redacted]';

// Secrets recognisable by shape, scrubbed from the finished line whatever key or depth carried them.
const WEBHOOK_SECRET = /whsec_[A-Za-z0-9+/=_-]*/g;
/** An API key's random part (a key's 10-character prefix alone is not a secret, but is not kept either). */
const API_KEY = /\bvk_[A-Za-z0-9_-]{7,}/g;
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@:"'\\]*:[^\s/@"'\\]*@/gi;
const PEM_PRIVATE_KEY = /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g;

/** Replaces webhook secrets, API keys, passwords in URLs and PEM private keys in one serialized log line. */
export function scrubLogLine(line: string): string {
  let out = line;
  if (out.includes('whsec_')) out = out.replace(WEBHOOK_SECRET, `whsec_${CENSOR}`);
  if (out.includes('vk_')) out = out.replace(API_KEY, `vk_${CENSOR}`);
  if (out.includes('://')) out = out.replace(URL_CREDENTIALS, `$1${CENSOR}@`);
  if (out.includes('PRIVATE KEY-----')) out = out.replace(PEM_PRIVATE_KEY, CENSOR);
  return out;
}

export interface LoggerOptions {
  level: string;
  destination?: NodeJS.WritableStream;
  /** Human-readable lines (pino-pretty) instead of JSON: for a terminal. Redaction applies either way. */
  pretty?: boolean;
  /** Literal texts replaced in every line, e.g. RPC URLs (whose paths hold API keys) by scheme and host. */
  replacements?: readonly (readonly [string, string])[];
}

export function createLogger(options: LoggerOptions): Logger {
  const replacements = options.replacements ?? [];
  const scrub =
    replacements.length === 0
      ? scrubLogLine
      : (line: string) => scrubLogLine(applyReplacements(line, replacements));
  // pino-pretty runs in this thread as the destination stream: the scrubbed line is what it formats,
  // and lines written just before process.exit are not lost in a worker's buffer.
  const destination = options.pretty
    ? loadOnUse<typeof pinoPretty>('pino-pretty')({
        colorize: true,
        translateTime: 'SYS:HH:MM:ss.l',
        ignore: 'pid,hostname,service',
        sync: true,
        ...(options.destination ? { destination: options.destination } : {}),
      })
    : options.destination;
  return pino(
    {
      level: options.level,
      base: { service: 'vaultkeeper' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED_PATHS, censor: CENSOR },
      formatters: { level: (label) => ({ level: label }) },
      hooks: { streamWrite: scrub },
    },
    destination as pino.DestinationStream | undefined,
  );
}

type LevelName = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/**
 * A child logger made only when something is logged through it. Fastify gives every request a child
 * bound to its id; building one (bindings serialized through the redaction) costs more than serving a
 * cached read, and almost every request logs nothing.
 */
export function deferredChildLogger(
  parent: Logger,
  bindings: pino.Bindings,
  options: pino.ChildLoggerOptions = {},
): Logger {
  // A route with its own level needs the real child to answer isLevelEnabled.
  if (options.level !== undefined) return parent.child(bindings, options);
  return new DeferredLogger(parent, bindings, options) as unknown as Logger;
}

/** One object per request, its methods on the prototype: nothing else is allocated until a line is logged. */
class DeferredLogger {
  #child: Logger | undefined;
  /** Bindings added before the first line (setBindings), merged in when the child is built. */
  #more: pino.Bindings | undefined;
  constructor(
    private readonly parent: Logger,
    private readonly childBindings: pino.Bindings,
    private readonly options: pino.ChildLoggerOptions,
  ) {}
  private real(): Logger {
    if (this.#child === undefined) {
      const bindings =
        this.#more === undefined ? this.childBindings : { ...this.childBindings, ...this.#more };
      this.#child = this.parent.child(bindings, this.options);
    }
    return this.#child;
  }
  private write(level: LevelName, args: unknown[]): void {
    if (this.#child === undefined && !this.parent.isLevelEnabled(level)) return;
    (this.real()[level] as (...a: unknown[]) => void)(...args);
  }
  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.write('error', args);
  }
  warn(...args: unknown[]): void {
    this.write('warn', args);
  }
  info(...args: unknown[]): void {
    this.write('info', args);
  }
  debug(...args: unknown[]): void {
    this.write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.write('trace', args);
  }
  silent(): void {}
  child(more: pino.Bindings, moreOptions?: pino.ChildLoggerOptions): Logger {
    return this.real().child(more, moreOptions);
  }
  bindings(): pino.Bindings {
    return this.real().bindings();
  }
  /** Adds bindings to every later line; before the first line, without building the child. */
  setBindings(more: pino.Bindings): void {
    if (this.#child !== undefined) this.#child.setBindings(more);
    else if (this.#more === undefined) this.#more = more;
    else this.#more = { ...this.#more, ...more };
  }
  isLevelEnabled(level: string): boolean {
    return (this.#child ?? this.parent).isLevelEnabled(level);
  }
  get level(): string {
    return (this.#child ?? this.parent).level;
  }
  set level(level: string) {
    this.real().level = level;
  }
}
