import { parseArgs } from 'node:util';
import { address } from '@solana/kit';
import { startFakeValidator } from './index.js';

/** `npx tsx dev/validator/main.ts --port 8899 [--program-id <id>]`: a fake validator for demos and chaos tests. */
const { values } = parseArgs({
  options: { port: { type: 'string', default: '8899' }, 'program-id': { type: 'string' } },
});
const programId = values['program-id'] === undefined ? undefined : address(values['program-id']);
const validator = await startFakeValidator({ port: Number(values.port), programId });
console.log(
  JSON.stringify({
    rpcUrl: validator.rpcUrl,
    wsUrl: validator.wsUrl,
    programId: validator.programId,
    control: `${validator.rpcUrl}/_control/<method>`,
  }),
);
const stop = () => {
  validator.close().then(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
