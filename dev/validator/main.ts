import { parseArgs } from 'node:util';
import { address } from '@solana/kit';
import { type FakeGrpc, startFakeGrpc } from '../grpc/server.js';
import { startFakeValidator } from './index.js';

/**
 * `npx tsx dev/validator/main.ts --port 8899 [--program-id <id>] [--grpc-port 10000]`: a fake validator
 * for demos and chaos tests; with --grpc-port also a Yellowstone gRPC server over its ledger, whose faults
 * are controls too (grpcDropStreams, grpcStallStreams, grpcSetOutage, grpcSetRefuseFromSlot).
 */
const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8899' },
    'program-id': { type: 'string' },
    'grpc-port': { type: 'string' },
  },
});
const programId = values['program-id'] === undefined ? undefined : address(values['program-id']);
const validator = await startFakeValidator({ port: Number(values.port), programId });
let grpc: FakeGrpc | null = null;
if (values['grpc-port'] !== undefined) {
  const started = await startFakeGrpc(validator, { port: Number(values['grpc-port']) });
  grpc = started;
  validator.addControls({
    grpcDropStreams: () => started.dropStreams(),
    grpcStallStreams: () => started.stallStreams(),
    grpcSetOutage: (on: boolean) => started.setOutage(on),
    grpcSetRefuseFromSlot: (on: boolean) => started.setRefuseFromSlot(on),
  });
}
console.log(
  JSON.stringify({
    rpcUrl: validator.rpcUrl,
    wsUrl: validator.wsUrl,
    ...(grpc === null ? {} : { grpcUrl: grpc.url }),
    programId: validator.programId,
    control: `${validator.rpcUrl}/_control/<method>`,
  }),
);
const stop = () => {
  Promise.all([grpc?.close(), validator.close()]).then(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
