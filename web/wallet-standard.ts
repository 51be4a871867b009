// The app side of the Wallet Standard: collect the wallets the browser registers, connect one, and
// call its Solana features (signAndSendTransaction, signMessage). No wallet-specific code.
import { getWallets } from '@wallet-standard/app';

export interface WalletAccount {
  readonly address: string;
  readonly publicKey: Uint8Array;
  readonly chains: readonly string[];
  readonly features: readonly string[];
}

export interface Wallet {
  readonly version: string;
  readonly name: string;
  readonly icon: string;
  readonly chains: readonly string[];
  readonly accounts: readonly WalletAccount[];
  readonly features: Readonly<Record<string, unknown>>;
}

interface ConnectFeature {
  connect(input?: { silent?: boolean }): Promise<{ accounts: readonly WalletAccount[] }>;
}
interface SignAndSendFeature {
  signAndSendTransaction(
    ...inputs: { account: WalletAccount; transaction: Uint8Array; chain: string; options?: object }[]
  ): Promise<readonly { signature: Uint8Array }[]>;
}
interface SignMessageFeature {
  signMessage(
    ...inputs: { account: WalletAccount; message: Uint8Array }[]
  ): Promise<readonly { signedMessage: Uint8Array; signature: Uint8Array }[]>;
}

const CONNECT = 'standard:connect';
const SIGN_AND_SEND_TRANSACTION = 'solana:signAndSendTransaction';
const SIGN_MESSAGE = 'solana:signMessage';

type Listener = (wallets: readonly Wallet[]) => void;

/** Listens for wallets (registered before and after this script loaded) and tells `listener` about each change. */
export function watchWallets(listener: Listener): () => void {
  // @wallet-standard/app holds the handshake: it announces the app and takes each wallet's registration.
  const registry = getWallets();
  const notify = () => listener(registry.get() as readonly Wallet[]);
  const stops = [registry.on('register', notify), registry.on('unregister', notify)];
  notify();
  return () => {
    for (const stop of stops) stop();
  };
}

/** The Wallet Standard chain id of a cluster (`mainnet-beta` is `solana:mainnet`). */
export function chainOf(cluster: string): string {
  return cluster === 'mainnet-beta' ? 'solana:mainnet' : `solana:${cluster}`;
}

/** A wallet this page can use: it connects and can sign and send Solana transactions and messages. */
export function isUsable(wallet: Wallet): boolean {
  return (
    CONNECT in wallet.features &&
    SIGN_AND_SEND_TRANSACTION in wallet.features &&
    wallet.chains.some((chain) => chain.startsWith('solana:'))
  );
}

export async function connect(wallet: Wallet): Promise<WalletAccount> {
  const feature = wallet.features[CONNECT] as ConnectFeature | undefined;
  if (!feature) throw new Error(`${wallet.name} cannot connect to web pages.`);
  const { accounts } = await feature.connect();
  const account = accounts[0] ?? wallet.accounts[0];
  if (!account) throw new Error(`${wallet.name} shared no account.`);
  return account;
}

export async function signAndSendTransaction(
  wallet: Wallet,
  account: WalletAccount,
  transaction: Uint8Array,
  chain: string,
): Promise<Uint8Array> {
  const feature = wallet.features[SIGN_AND_SEND_TRANSACTION] as SignAndSendFeature | undefined;
  if (!feature) throw new Error(`${wallet.name} cannot send transactions.`);
  const [output] = await feature.signAndSendTransaction({
    account,
    transaction,
    chain,
    options: { commitment: 'confirmed' },
  });
  if (!output) throw new Error(`${wallet.name} returned no signature.`);
  return output.signature;
}

export async function signMessage(
  wallet: Wallet,
  account: WalletAccount,
  message: Uint8Array,
): Promise<Uint8Array> {
  const feature = wallet.features[SIGN_MESSAGE] as SignMessageFeature | undefined;
  if (!feature) throw new Error(`${wallet.name} cannot sign messages, which rejecting needs.`);
  const [output] = await feature.signMessage({ account, message });
  if (!output) throw new Error(`${wallet.name} returned no signature.`);
  return output.signature;
}

/** Wallets report a refusal in their own words; these are the usual ones (code 4001 is EIP-1193's). */
export function isUserRejection(error: unknown): boolean {
  const { code, message, name } = (error ?? {}) as { code?: unknown; message?: unknown; name?: unknown };
  if (code === 4001 || name === 'WalletSignTransactionError' || name === 'UserRejectedRequestError')
    return true;
  return typeof message === 'string' && /reject|declin|denied|cancel/i.test(message);
}

/** The account as a request signer of the client package: each request is one signMessage prompt. */
export function messageSignerOf(
  wallet: Wallet,
  account: WalletAccount,
): { address: string; signMessage(message: Uint8Array): Promise<Uint8Array> } {
  return { address: account.address, signMessage: (message) => signMessage(wallet, account, message) };
}
