import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseProgramLogs } from './log-parser.js';
import { DEFAULT_PROGRAM_ID as VAULT } from './program.js';

const OTHER = 'Othr111111111111111111111111111111111111111';
const SYSTEM = '11111111111111111111111111111111';
const A = Buffer.from('event-a').toString('base64');
const B = Buffer.from('event-b').toString('base64');
const F = Buffer.from('forged').toString('base64');

const texts = (logs: string[]) =>
  parseProgramLogs(logs, VAULT).events.map((e) => Buffer.from(e.bytes).toString());

describe('parseProgramLogs', () => {
  it('counts events of the vault program with the running instruction name', () => {
    const result = parseProgramLogs(
      [
        'Program ComputeBudget111111111111111111111111111111 invoke [1]',
        'Program ComputeBudget111111111111111111111111111111 success',
        `Program ${VAULT} invoke [1]`,
        'Program log: Instruction: ApproveOverride',
        `Program data: ${A}`,
        `Program ${VAULT} consumed 5000 of 200000 compute units`,
        `Program ${VAULT} success`,
        `Program ${VAULT} invoke [1]`,
        'Program log: Instruction: ExecuteApprovedOverride',
        `Program ${SYSTEM} invoke [2]`,
        `Program ${SYSTEM} success`,
        `Program data: ${B}`,
        `Program ${VAULT} success`,
      ],
      VAULT,
    );
    assert.equal(result.truncated, false);
    assert.deepEqual(
      result.events.map((e) => [e.index, e.instruction, Buffer.from(e.bytes).toString()]),
      [
        [0, 'ApproveOverride', 'event-a'],
        [1, 'ExecuteApprovedOverride', 'event-b'],
      ],
    );
  });

  it('ignores a look-alike line printed by another top-level program', () => {
    assert.deepEqual(
      texts([`Program ${OTHER} invoke [1]`, `Program data: ${F}`, `Program ${OTHER} success`]),
      [],
    );
  });

  it('ignores lines of a CPI callee but counts the vault again after it returns', () => {
    const logs = [
      `Program ${VAULT} invoke [1]`,
      `Program ${OTHER} invoke [2]`,
      `Program data: ${F}`,
      `Program ${OTHER} success`,
      `Program data: ${A}`,
      `Program ${VAULT} success`,
    ];
    assert.deepEqual(texts(logs), ['event-a']);
  });

  it('counts the vault program when another program calls it by CPI', () => {
    const logs = [
      `Program ${OTHER} invoke [1]`,
      `Program data: ${F}`,
      `Program ${VAULT} invoke [2]`,
      'Program log: Instruction: PauseVault',
      `Program data: ${A}`,
      `Program ${VAULT} success`,
      `Program data: ${F}`,
      `Program ${OTHER} success`,
    ];
    assert.deepEqual(texts(logs), ['event-a']);
    assert.equal(parseProgramLogs(logs, VAULT).events[0]?.instruction, 'PauseVault');
  });

  it('pops a failed program and keeps events logged before the failure', () => {
    const logs = [
      `Program ${VAULT} invoke [1]`,
      `Program data: ${A}`,
      `Program ${VAULT} consumed 100 of 200000 compute units`,
      `Program ${VAULT} failed: custom program error: 0x2ee0`,
      `Program data: ${F}`,
    ];
    assert.deepEqual(texts(logs), ['event-a']);
  });

  it('stops at Log truncated and reports it', () => {
    const result = parseProgramLogs(
      [`Program ${VAULT} invoke [1]`, `Program data: ${A}`, 'Log truncated', `Program data: ${B}`],
      VAULT,
    );
    assert.equal(result.truncated, true);
    assert.equal(result.events.length, 1);
  });

  it('resynchronises on the invoke depth and never throws on garbage', () => {
    const logs = [
      `Program ${OTHER} invoke [1]`,
      // the callee's exit line is missing: the depth of the next invoke says where we are
      `Program ${VAULT} invoke [1]`,
      `Program data: ${A}`,
      'Program data: !!not base64!!',
      'Program data: ',
      '',
      'Program  invoke [x]',
      `Program ${VAULT} success`,
      `Program ${VAULT} success`,
      `Program data: ${F}`,
    ];
    assert.deepEqual(texts(logs), ['event-a']);
    assert.deepEqual(parseProgramLogs([null, 3] as unknown as string[], VAULT), {
      events: [],
      truncated: false,
    });
  });
});
