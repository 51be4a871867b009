// Cost of the client key (src/lib/client-key.ts) per call, for the address forms a request can carry,
// beside the general parser it replaced (ip-address, through @fastify/rate-limit's normalizeIP) when it
// is installed. CPU time of this process over many calls; a key is computed once per request.
//   npx tsx bench/client-key.bench.ts [--calls 2000000]
import { parseArgs } from 'node:util';
import { createClientKey } from '../src/lib/client-key.js';

const { values: args } = parseArgs({ options: { calls: { type: 'string', default: '2000000' } } });
const CALLS = Number(args.calls);
// Informal target: a key costs well under a microsecond in every form.
const TARGET_NS = 1_000;

const ADDRESSES = 4_096;
const forms: Record<string, string[]> = {
  ipv4: [],
  'ipv4-mapped': [],
  'ipv6 compressed': [],
  'ipv6 full, upper case': [],
  'ipv6 with zone': [],
  malformed: [],
};
for (let i = 0; i < ADDRESSES; i++) {
  const a = (i * 2_654_435_761) >>> 0;
  const hex = (n: number) => (n & 0xffff).toString(16);
  forms.ipv4!.push(`${(a >>> 24) & 255}.${(a >>> 16) & 255}.${(a >>> 8) & 255}.${a & 255}`);
  forms['ipv4-mapped']!.push(`::ffff:${(a >>> 24) & 255}.${(a >>> 16) & 255}.${(a >>> 8) & 255}.${a & 255}`);
  forms['ipv6 compressed']!.push(`2001:db8:${hex(a)}:${hex(a >>> 16)}::${hex(i)}`);
  forms['ipv6 full, upper case']!.push(
    `2001:0DB8:${hex(a).padStart(4, '0')}:${hex(a >>> 16).padStart(4, '0')}:0000:00AB:${hex(i)}:FFFF`.toUpperCase(),
  );
  forms['ipv6 with zone']!.push(`fe80::${hex(a)}:${hex(i)}%eth0`);
  forms.malformed!.push(`client-${i}`);
}

type KeyFunction = (ip: string) => string;
function nanosPerCall(keyOf: KeyFunction, addresses: string[]): number {
  let sink = 0;
  for (let i = 0; i < 50_000; i++) sink += keyOf(addresses[i & (ADDRESSES - 1)]!).length; // warm-up
  const start = process.cpuUsage();
  for (let i = 0; i < CALLS; i++) sink += keyOf(addresses[i & (ADDRESSES - 1)]!).length;
  const used = process.cpuUsage(start);
  if (sink === 0) throw new Error('no keys computed');
  return ((used.user + used.system) * 1_000) / CALLS;
}

async function generalParser(): Promise<KeyFunction | null> {
  try {
    // A computed specifier: its types (which declare route config of their own) stay out of the build.
    const specifier = '@fastify/rate-limit';
    const { normalizeIP } = (await import(specifier)) as { normalizeIP: (ip: string) => string };
    return (ip) => {
      try {
        return normalizeIP(ip);
      } catch {
        return 'invalid';
      }
    };
  } catch {
    return null;
  }
}

const ours = createClientKey();
const general = await generalParser();
console.log(`client key: CPU ns per call over ${CALLS} calls (${ADDRESSES} distinct addresses per form)`);
console.log('form                    | client-key | general parser');
let over = 0;
for (const [form, addresses] of Object.entries(forms)) {
  const ns = nanosPerCall(ours, addresses);
  if (ns > TARGET_NS) over += 1;
  const reference = general === null ? 'n/a' : nanosPerCall(general, addresses).toFixed(0);
  console.log(`${form.padEnd(23)} | ${ns.toFixed(0).padStart(10)} | ${reference.padStart(14)}`);
}
console.log(over === 0 ? `every form under ${TARGET_NS} ns` : `${over} form(s) over ${TARGET_NS} ns`);
