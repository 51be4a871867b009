import type { Address } from '@solana/kit';

/** One `Program data:` line emitted by the vault program while it was the innermost running program. */
export type LoggedEvent = {
  /** Position among the counted events of the transaction, 0-based. */
  index: number;
  /** PascalCase name from `Program log: Instruction: <Name>` of the running vault instruction, if logged. */
  instruction: string | null;
  bytes: Uint8Array;
};

export type ParsedProgramLogs = { events: LoggedEvent[]; truncated: boolean };

type Frame = { programId: string; instruction: string | null };

const INVOKE = /^Program (\S+) invoke \[(\d+)\]$/;
const EXIT = /^Program (\S+) (?:success$|failed(?::|$))/;
const DATA_PREFIX = 'Program data: ';
const INSTRUCTION_PREFIX = 'Program log: Instruction: ';
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Walks a transaction's log messages with an invoke stack so that only events the vault program
 * itself emitted count; look-alike lines printed by any other program (callers or CPI callees) are
 * ignored. Never throws on unexpected lines.
 */
export function parseProgramLogs(logs: readonly string[], programId: Address | string): ParsedProgramLogs {
  const stack: Frame[] = [];
  const events: LoggedEvent[] = [];
  for (const line of logs) {
    if (typeof line !== 'string') continue;
    if (line.startsWith('Log truncated')) return { events, truncated: true };
    const invoke = INVOKE.exec(line);
    if (invoke) {
      // The depth says where this frame sits; trust it over our stack if they ever disagree.
      const depth = Number(invoke[2]);
      if (depth >= 1 && depth - 1 < stack.length) stack.length = depth - 1;
      stack.push({ programId: invoke[1] ?? '', instruction: null });
      continue;
    }
    const exit = EXIT.exec(line);
    if (exit) {
      popFrame(stack, exit[1] ?? '');
      continue;
    }
    const top = stack.at(-1);
    if (top === undefined || top.programId !== programId) continue;
    if (line.startsWith(INSTRUCTION_PREFIX)) {
      top.instruction = line.slice(INSTRUCTION_PREFIX.length).trim() || null;
    } else if (line.startsWith(DATA_PREFIX)) {
      // sol_log_data prints several base64 fields separated by spaces; Anchor emit! writes one.
      const field = line.slice(DATA_PREFIX.length).trim().split(' ')[0] ?? '';
      if (field.length === 0 || !BASE64.test(field)) continue;
      events.push({
        index: events.length,
        instruction: top.instruction,
        bytes: new Uint8Array(Buffer.from(field, 'base64')),
      });
    }
  }
  return { events, truncated: false };
}

function popFrame(stack: Frame[], programId: string): void {
  for (let i = stack.length - 1; i >= 0; i--) {
    if (stack[i]?.programId === programId) {
      stack.length = i;
      return;
    }
  }
}
