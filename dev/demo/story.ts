// What the demo plays on the simulated chain: three vaults, a week of history in a few seconds, then
// "today" in real time (transfers, blocks, an approved and a pending override, a pause), then traffic.
import type { Address } from '@solana/kit';
import type { FakeValidator } from '../validator/index.js';
import { randomAddress } from '../validator/scenarios.js';
import type { Owner } from './owner.js';

export const SOL = 1_000_000_000n;
const DAY = 86_400;

export interface DemoVault {
  readonly name: string;
  readonly address: Address;
  readonly dailyLimit: bigint;
  /** Whitelisted destinations; empty = the vault pays anyone. */
  readonly payees: readonly Address[];
  readonly vendors: readonly Address[];
}

export interface StoryContext {
  readonly fake: FakeValidator;
  readonly owner: Owner;
  readonly baseUrl: string;
  readonly signal: AbortSignal;
  say(line: string): void;
  pause(ms: number): Promise<void>;
}

/** A small seeded generator: every run plays the same week. */
function createRandom(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  return {
    next,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T,
    /** A lamport amount between the two SOL figures, rounded to 0.001 SOL. */
    sol: (min: number, max: number) =>
      BigInt(Math.round((min + next() * (max - min)) * 1000)) * (SOL / 1000n),
  };
}

const random = createRandom(20_261_122);
const nowSeconds = () => Math.floor(Date.now() / 1000);

interface VaultSpec {
  name: string;
  dailyLimit: bigint;
  funding: bigint;
  payees: number;
}

const SPECS: readonly VaultSpec[] = [
  { name: 'Marketing agent', dailyLimit: 5n * SOL, funding: 60n * SOL, payees: 0 },
  { name: 'Payroll bot', dailyLimit: 20n * SOL, funding: 150n * SOL, payees: 3 },
  { name: 'Research API credits', dailyLimit: 1n * SOL, funding: 12n * SOL, payees: 0 },
];

/** Creates the vaults through the real API (POST /api/vaults, signed and sent by the owner) a week ago. */
export async function createVaults(ctx: StoryContext, createdAt: number): Promise<DemoVault[]> {
  const vaults: DemoVault[] = [];
  for (const [i, spec] of SPECS.entries()) {
    ctx.fake.setTime(createdAt + i * 60, 0);
    const built = await ctx.owner.call<{ vault: { address: Address }; transaction: string }>(
      'POST',
      '/api/vaults',
      {
        name: spec.name,
        agentSigner: randomAddress(),
        dailyLimit: spec.dailyLimit.toString(),
      },
    );
    await ctx.owner.signAndSend(built.transaction);
    const address = built.vault.address;
    await ctx.fake.deposit(address, spec.funding);
    const payees = Array.from({ length: spec.payees }, () => randomAddress());
    if (payees.length > 0) {
      await waitForIngested(ctx, `/api/vaults/${address}`);
      await ownerUpdate(ctx, address, { whitelist: { add: payees } });
    }
    vaults.push({
      name: spec.name,
      address,
      dailyLimit: spec.dailyLimit,
      payees,
      vendors: [randomAddress(), randomAddress(), randomAddress()],
    });
    ctx.say(`created vault "${spec.name}" ${address} (daily limit ${spec.dailyLimit / SOL} SOL)`);
  }
  return vaults;
}

/** PATCH /api/vaults/:address, then sign and send the transaction it builds. */
export async function ownerUpdate(
  ctx: StoryContext,
  vault: Address,
  body: Record<string, unknown>,
): Promise<void> {
  const built = await ctx.owner.call<{ transaction: string | null }>('PATCH', `/api/vaults/${vault}`, body);
  if (built.transaction !== null) await ctx.owner.signAndSend(built.transaction);
}

const destinationOf = (vault: DemoVault) =>
  random.pick(vault.payees.length > 0 ? vault.payees : vault.vendors);

/** An agent transfer that the vault's policy checks, as on the real program. */
async function spend(
  ctx: StoryContext,
  vault: DemoVault,
  amount: bigint,
  destination = destinationOf(vault),
) {
  const result = await ctx.fake.execute(vault.address, { amount, destination, enforcePolicy: true });
  const blocked = result.events.find((e) => e.name === 'TransactionBlocked');
  const nonce = blocked?.name === 'TransactionBlocked' ? blocked.data.overrideNonce : null;
  return { blocked: blocked !== undefined, overrideNonce: nonce ?? null };
}

/** Six past days of ordinary spending, with block times in the past, played in a few seconds. */
export async function playHistory(
  ctx: StoryContext,
  vaults: readonly DemoVault[],
  days: number,
): Promise<void> {
  const today = Math.floor(nowSeconds() / DAY) * DAY;
  for (let d = days; d >= 1; d--) {
    const day = today - d * DAY;
    const moves: { time: number; vault: DemoVault; amount: bigint; blocked: boolean }[] = [];
    for (const vault of vaults) {
      const transfers = random.int(2, 5);
      // At most half the limit a calendar day: the program's 24 h window spans two of them.
      const share = Number(vault.dailyLimit / SOL) / (2 * (transfers + 1));
      for (let i = 0; i < transfers; i++) {
        const time = day + 8 * 3600 + random.int(0, 11 * 3600);
        moves.push({ time, vault, amount: random.sol(share * 0.3, share), blocked: false });
      }
      if (vault.payees.length > 0 && d % 3 === 0) {
        moves.push({ time: day + 21 * 3600, vault, amount: random.sol(1, 4), blocked: true });
      }
    }
    // Block times only move forward, as on a real chain.
    for (const move of moves.sort((a, b) => a.time - b.time)) {
      ctx.fake.setTime(move.time, 0);
      if (move.blocked) {
        await ctx.fake.block(move.vault.address, {
          amount: move.amount,
          reason: 'not_whitelisted',
          withOverride: false,
        });
      } else {
        await spend(ctx, move.vault, move.amount);
      }
    }
  }
}

/** Waits until the service has ingested what `path` reads (the chain is the truth; the API follows). */
async function waitForIngested(ctx: StoryContext, path: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline && !ctx.signal.aborted) {
    const response = await fetch(`${ctx.baseUrl}${path}`).catch(() => null);
    if (response?.ok) return;
    await ctx.pause(250);
  }
  throw new Error(`${path} was not ingested within 30 s`);
}

const waitForOverride = (ctx: StoryContext, vault: Address, nonce: bigint) =>
  waitForIngested(ctx, `/api/overrides/${vault}/${nonce}`);

/** Today, in real time: each step waits a few seconds so a person can watch the pages change. */
export async function playToday(
  ctx: StoryContext,
  vaults: readonly DemoVault[],
): Promise<{ pendingOverride: string | null }> {
  const [marketing, payroll, research] = vaults as [DemoVault, DemoVault, DemoVault];
  const live = () => ctx.fake.setTime(nowSeconds(), 0);
  const step = async (line: string, work: () => Promise<void>, pauseMs = 4_000) => {
    if (ctx.signal.aborted) return;
    ctx.say(line);
    live();
    try {
      await work();
    } catch (error) {
      ctx.say(`  step failed: ${(error as Error).message}`);
    }
    await ctx.pause(pauseMs);
  };
  let pendingOverride: string | null = null;

  await step('Marketing agent pays two ad networks (0.8 and 1.2 SOL)', async () => {
    await spend(ctx, marketing, 800_000_000n);
    live();
    await spend(ctx, marketing, 1_200_000_000n);
  });
  await step('Payroll bot pays two whitelisted contractors', async () => {
    await spend(ctx, payroll, 4n * SOL, payroll.payees[0]);
    live();
    await spend(ctx, payroll, 3_500_000_000n, payroll.payees[1]);
  });
  await step('Payroll bot tries an address that is not on its whitelist: blocked', async () => {
    await ctx.fake.block(payroll.address, {
      amount: 2n * SOL,
      reason: 'not_whitelisted',
      withOverride: false,
    });
  });
  await step('Research agent buys API credits (0.3 and 0.45 SOL of its 1 SOL a day)', async () => {
    await spend(ctx, research, 300_000_000n);
    live();
    await spend(ctx, research, 450_000_000n);
  });
  await step(
    'Research agent needs 0.5 SOL more: over the daily limit, blocked with an override',
    async () => {
      const { overrideNonce } = await spend(ctx, research, 500_000_000n);
      if (overrideNonce === null) throw new Error('the transfer was not blocked');
      await waitForOverride(ctx, research.address, overrideNonce);
      ctx.say('  the owner approves it through the Blink API, signs and sends the transaction');
      const approval = await ctx.owner.call<{ transaction: string }>(
        'POST',
        `/api/actions/${research.address}/${overrideNonce}/approve`,
        { account: ctx.owner.address },
      );
      live();
      const signature = await ctx.owner.signAndSend(approval.transaction);
      ctx.say(`  approved and executed in ${signature.slice(0, 12)}…`);
    },
  );
  await step(
    'Marketing agent tries a 3.5 SOL campaign: over the daily limit, waiting for the owner',
    async () => {
      const { overrideNonce } = await spend(ctx, marketing, 3_500_000_000n);
      if (overrideNonce === null) throw new Error('the transfer was not blocked');
      await waitForOverride(ctx, marketing.address, overrideNonce);
      pendingOverride = `${ctx.baseUrl}/overrides/${marketing.address}/${overrideNonce}`;
      ctx.say(`  review it here: ${pendingOverride}`);
    },
  );
  await step(
    'The owner pauses the payroll bot for a check',
    () => ownerUpdate(ctx, payroll.address, { paused: true }),
    6_000,
  );
  await step('…and resumes it', () => ownerUpdate(ctx, payroll.address, { paused: false }));
  await step('The owner raises the research budget to 2 SOL a day', () =>
    ownerUpdate(ctx, research.address, { dailyLimit: (2n * SOL).toString() }),
  );
  return { pendingOverride };
}

/** Keeps some traffic going until stopped: small transfers, top-ups, and now and then a block. */
export async function playTraffic(ctx: StoryContext, vaults: readonly DemoVault[]): Promise<void> {
  while (!ctx.signal.aborted) {
    await ctx.pause(random.int(5_000, 9_000));
    if (ctx.signal.aborted) return;
    const vault = random.pick(vaults);
    const entry = ctx.fake.getVault(vault.address);
    if (entry === undefined || entry.config.paused) continue;
    ctx.fake.setTime(nowSeconds(), 0);
    try {
      if (ctx.fake.balance(entry.depositAddress) < 3n * SOL) await ctx.fake.deposit(vault.address, 20n * SOL);
      const amount = random.sol(0.02, Number(vault.dailyLimit / SOL) / 12);
      // Mostly within the limit; once it is spent the agent waits for tomorrow, as a real one would.
      if (entry.config.spentToday + amount > entry.config.dailyLimit && random.next() > 0.2) continue;
      if (vault.payees.length > 0 && random.next() < 0.1) {
        await ctx.fake.block(vault.address, { amount, reason: 'not_whitelisted', withOverride: false });
        ctx.say(`${vault.name}: blocked ${Number(amount) / 1e9} SOL to an unknown address`);
      } else {
        const { blocked } = await spend(ctx, vault, amount);
        ctx.say(`${vault.name}: ${blocked ? 'blocked' : 'sent'} ${Number(amount) / 1e9} SOL`);
      }
    } catch (error) {
      ctx.say(`traffic: ${(error as Error).message}`);
    }
  }
}
