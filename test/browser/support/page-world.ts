// The world of a page test file: one stack (the service, a fake validator and Chromium) for the whole
// file and an owner wallet, funded for fees unless told otherwise; the stack closes after the file.
import { after, before } from 'node:test';
import type { Address } from '@solana/kit';
import { createTestWallet, type TestWallet } from '../../../dev/support/wallet.js';
import { SOL, type Stack, startStack } from './harness.js';

export interface PageWorldOptions {
  /** Added to the service's environment; a function gets the owner (to hand the service its key). */
  env?: Record<string, string> | ((owner: TestWallet) => Record<string, string>);
  /** Lamports airdropped to the owner once the stack is up (5 SOL unless given; 0n for none). */
  ownerFunds?: bigint;
}

export interface PageWorld {
  readonly stack: Stack;
  readonly owner: TestWallet;
}

/** Registers the file's hooks; call it at the top of a file, outside describe. */
export function usePageWorld(options: PageWorldOptions = {}): PageWorld {
  const owner = createTestWallet();
  let stack: Stack | undefined;
  before(async () => {
    const env = typeof options.env === 'function' ? options.env(owner) : options.env;
    stack = await startStack(env ? { env } : {});
    const funds = options.ownerFunds ?? 5n * SOL;
    if (funds > 0n) await stack.fake.airdrop(owner.address as Address, funds);
  });
  after(async () => {
    await stack?.close();
  });
  return {
    get stack() {
      if (stack === undefined) throw new Error('usePageWorld: the stack starts in before()');
      return stack;
    },
    owner,
  };
}
