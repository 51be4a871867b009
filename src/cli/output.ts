// What the CLI prints: lines for people, one JSON document with --json, progress on a terminal only.
import type { Writable } from 'node:stream';

/** Exit codes: 0 done, 1 a check or the work failed, 2 the command line is wrong, 3 the configuration is. */
export const EXIT = { ok: 0, failed: 1, usage: 2, config: 3 } as const;

/** A failure the CLI reports as one line (plus what to do) and an exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failed,
    readonly fix?: string,
  ) {
    super(message);
  }
}

export interface Output {
  readonly json: boolean;
  /** A line for people (nothing with --json). */
  line(text: string): void;
  /** The result document of --json (nothing without it). */
  result(value: unknown): void;
  /** One JSON line per item of a stream with --json (nothing without it). */
  record(value: unknown): void;
  /** A status line for people on stderr (also with --json, whose stdout stays JSON). */
  note(text: string): void;
  /** A progress bar on stderr when it is a terminal and --json is off; `total` null counts without a bar. */
  progress(label: string, total: number | null): { tick(count?: number): void; done(): void };
}

export function createOutput(options: {
  json: boolean;
  stdout: Writable;
  stderr: Writable & { isTTY?: boolean };
}): Output {
  const { json, stdout, stderr } = options;
  const live = !json && stderr.isTTY === true;
  return {
    json,
    line(text) {
      if (!json) stdout.write(`${text}\n`);
    },
    result(value) {
      if (json) stdout.write(`${JSON.stringify(value, null, 2)}\n`);
    },
    record(value) {
      if (json) stdout.write(`${JSON.stringify(value)}\n`);
    },
    note(text) {
      stderr.write(`${text}\n`);
    },
    progress(label, total) {
      let count = 0;
      const draw = () => {
        if (!live) return;
        const width = 30;
        const bar =
          total === null || total === 0
            ? ''
            : `[${'#'.repeat(Math.round((width * count) / total)).padEnd(width, ' ')}] `;
        stderr.write(`\r${label} ${bar}${count}${total === null ? '' : `/${total}`}`);
      };
      draw();
      return {
        tick(n = 1) {
          count += n;
          draw();
        },
        done() {
          if (live) stderr.write('\n');
        },
      };
    },
  };
}
