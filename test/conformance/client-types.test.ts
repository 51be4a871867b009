// @vaultkeeper/client's types are aliases of those rendered from docs/openapi.json (npm run codegen): what
// is checked here is what the document cannot say, which calls of the client compile.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ENTRY = fileURLToPath(new URL('../../packages/client/src/index.ts', import.meta.url));

/** Calls a user may write: the first five must not compile (one per line, from line 4). */
const CALLS = fileURLToPath(new URL('approval-calls.ts', import.meta.url));
const CALL_LINES = [
  "import { createVaultkeeperClient, type Override } from '@vaultkeeper/client';",
  'declare const override: Override;',
  "const c = createVaultkeeperClient({ baseUrl: 'https://vaultkeeper.example.com' });",
  "const vault = 'V', account = 'A';",
  "c.approvals.approve({ vault, nonce: '0', account });",
  'c.approvals.preview({ vault, nonce: 0, account });',
  "c.approvals.confirm({ vault, nonce: 0n, account, signature: 's' });",
  "c.actions.approve({ vault, nonce: '0' }, { account });",
  "c.approvals.approve({ vault, nonce: '0', transfer: 's', first: true, account });",
  "c.approvals.approve({ vault, nonce: '0', transfer: 's', account });",
  "c.approvals.approve({ vault, nonce: '0', first: true, account });",
  'c.approvals.approve({ ...override, account });',
  "c.approvals.confirm({ ...override, account, signature: 's' });",
  'c.actions.approve(override, { account });',
  'c.analytics.realtime({ vault });',
  'c.analytics.realtime(vault);',
];

/** One program (type-checking the client costs seconds) holding the client and the calls above. */
const program = (() => {
  let built: ts.Program | undefined;
  return () => {
    if (built !== undefined) return built;
    const options: ts.CompilerOptions = {
      strict: true,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      customConditions: ['vaultkeeper-source'],
      lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
      noEmit: true,
    };
    const host = ts.createCompilerHost(options);
    const read = host.getSourceFile;
    host.getSourceFile = (name, version) =>
      name === CALLS
        ? ts.createSourceFile(name, CALL_LINES.join('\n'), version)
        : read.call(host, name, version);
    built = ts.createProgram([ENTRY, CALLS], options, host);
    return built;
  };
})();

test('a decision named by vault and nonce alone does not compile; by transfer, first: true or the override object it does', () => {
  const failing = ts
    .getPreEmitDiagnostics(program(), program().getSourceFile(CALLS))
    .map((d) => d.file!.getLineAndCharacterOfPosition(d.start!).line);
  assert.deepEqual(
    [...new Set(failing)].sort((a, b) => a - b),
    [4, 5, 6, 7, 8],
  );
});
