// Validation of vault writes: names, limits and whitelist edits, reported together as issues.
import type { ValidationIssue } from '../../errors.js';
import { parseLamports } from '../../lib/lamports.js';
import { MAX_NAME_BYTES, MAX_WHITELIST } from '../policy/program-limits.js';

const MAX_NAME_CHARACTERS = 50;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds.
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/;

/** Issues with a vault name: 1..50 characters, at most 50 UTF-8 bytes (on-chain), not blank, printable. */
export function checkVaultName(name: string, path: string): ValidationIssue[] {
  const characters = [...name].length;
  if (characters < 1 || characters > MAX_NAME_CHARACTERS) {
    return [{ path, message: `must be 1 to ${MAX_NAME_CHARACTERS} characters` }];
  }
  const issues: ValidationIssue[] = [];
  if (Buffer.byteLength(name, 'utf8') > MAX_NAME_BYTES) {
    issues.push({ path, message: `must be at most ${MAX_NAME_BYTES} bytes in UTF-8 (the on-chain limit)` });
  }
  if (name.trim() === '') issues.push({ path, message: 'must not be blank' });
  if (CONTROL_CHARACTERS.test(name)) issues.push({ path, message: 'must not contain control characters' });
  return issues;
}

/** A daily limit in lamports: a positive whole number up to 2^64-1. */
export function parseDailyLimit(
  value: number | string,
  path: string,
  issues: ValidationIssue[],
): bigint | null {
  const parsed = parseLamports(value);
  if (parsed === null) issues.push({ path, message: 'must be a whole number of lamports from 1 to 2^64-1' });
  return parsed;
}

export interface WhitelistEdit {
  add: string[];
  remove: string[];
}

/**
 * Checks a whitelist edit against the stored whitelist: something to change, no duplicates, nothing
 * added twice or removed that is absent, and at most 20 entries after the edit.
 */
export function checkWhitelistEdit(
  stored: readonly string[],
  edit: Partial<WhitelistEdit>,
  issues: ValidationIssue[],
): WhitelistEdit {
  const add = edit.add ?? [];
  const remove = edit.remove ?? [];
  const current = new Set(stored);
  if (add.length === 0 && remove.length === 0) {
    issues.push({ path: 'body.whitelist', message: 'must add or remove at least one address' });
  }
  const seen = new Set<string>();
  add.forEach((address, i) => {
    const path = `body.whitelist.add.${i}`;
    if (seen.has(address)) issues.push({ path, message: 'is listed more than once' });
    else if (current.has(address)) issues.push({ path, message: 'is already on the whitelist' });
    seen.add(address);
  });
  const removing = new Set<string>();
  remove.forEach((address, i) => {
    const path = `body.whitelist.remove.${i}`;
    if (removing.has(address) || seen.has(address))
      issues.push({ path, message: 'is listed more than once' });
    else if (!current.has(address)) issues.push({ path, message: 'is not on the whitelist' });
    removing.add(address);
  });
  const size = new Set([...stored.filter((a) => !removing.has(a)), ...seen]).size;
  if (size > MAX_WHITELIST) {
    issues.push({
      path: 'body.whitelist',
      message: `would hold ${size} addresses; the limit is ${MAX_WHITELIST}`,
    });
  }
  return { add, remove };
}
