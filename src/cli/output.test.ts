import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { createOutput } from './output.js';

function sink(isTTY: boolean) {
  const chunks: string[] = [];
  const stream = Object.assign(
    new Writable({
      write(chunk, _encoding, done) {
        chunks.push(String(chunk));
        done();
      },
    }),
    { isTTY },
  );
  return { stream, text: () => chunks.join('') };
}

test('progress is drawn on a terminal only, never with --json, and lines and JSON never mix', () => {
  const tty = { out: sink(false), err: sink(true) };
  const people = createOutput({ json: false, stdout: tty.out.stream, stderr: tty.err.stream });
  const bar = people.progress('retrying', 4);
  bar.tick();
  bar.tick(3);
  bar.done();
  people.line('4 retried');
  people.result({ retried: 4 });
  assert.equal(
    tty.err.text(),
    `\rretrying [${' '.repeat(30)}] 0/4\rretrying [${'#'.repeat(8)}${' '.repeat(22)}] 1/4\rretrying [${'#'.repeat(30)}] 4/4\n`,
  );
  assert.equal(tty.out.text(), '4 retried\n');

  const piped = { out: sink(false), err: sink(false) };
  const script = createOutput({ json: true, stdout: piped.out.stream, stderr: piped.err.stream });
  script.progress('retrying', 4).tick();
  script.line('4 retried');
  script.result({ retried: 4 });
  assert.equal(piped.err.text(), '');
  assert.deepEqual(JSON.parse(piped.out.text()), { retried: 4 });
});
