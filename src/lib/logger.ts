import { type Logger, pino } from 'pino';

/** Paths that must never reach a log line: signatures, signed messages, secrets, keys. */
export const REDACTED_PATHS = [
  'req.headers["x-signature"]',
  'req.headers["x-message"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'headers["x-signature"]',
  'headers["x-message"]',
  'headers["webhook-signature"]',
  'headers["x-vaultkeeper-signature"]',
  'secret',
  '*.secret',
  'previousSecret',
  '*.previousSecret',
  'privateKey',
  '*.privateKey',
  'signature',
  '*.signature',
];

export function createLogger(options: { level: string; destination?: NodeJS.WritableStream }): Logger {
  return pino(
    {
      level: options.level,
      base: { service: 'vaultkeeper' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
    },
    options.destination as pino.DestinationStream | undefined,
  );
}
