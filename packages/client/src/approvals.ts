// Deciding on an override: how a call names exactly one, the methods of the owner's decision (`approvals`),
// and the Blink transport (`actions`). Every transfer blocked before the owner acts announces the same
// nonce, so `{ vault, nonce }` alone names the first of them, which may not be the one the caller means.
import { type CallOptions, pathSegment as seg, type Transport } from './transport.js';
import type {
  ActionMetadata,
  ActionPostRequest,
  ActionsJson,
  ActionTransaction,
  Approval,
  ApprovalQuery,
  ApprovalWaitOptions,
  CompletedAction,
  ConfirmRejectBody,
  Override,
  RejectResponse,
  TransactionPreview,
} from './types.js';

type Nonce = string | number | bigint;

/** Where an override or its Blink lives, for reads: its vault, nonce and (for all but the first) its transfer. */
export interface OverrideAddress {
  vault: string;
  nonce: Nonce;
  transfer?: string | undefined;
}

/** An override named by its blocked transfer's signature (`transferSignature`): it names no other. */
export interface OverrideByTransfer {
  vault: string;
  nonce: Nonce;
  transfer: string;
  first?: undefined;
}

/** The first override that announced `nonce` in the vault, chosen on purpose (its address has no transfer). */
export interface FirstOverrideOfNonce {
  vault: string;
  nonce: Nonce;
  first: true;
  transfer?: undefined;
}

/** An override as the API returns it (lists, detail, `override.*` webhooks): its `blinkUrl` is its address. */
export type OverrideReference = Pick<Override, 'vault' | 'nonce' | 'transferSignature' | 'blinkUrl'>;

/**
 * The one override a decision is about: `{ vault, nonce, transfer }`, the override object the API
 * returned, or `{ vault, nonce, first: true }`. `{ vault, nonce }` alone does not compile (and is
 * refused at run time): it would address the nonce's first override, whatever the caller listed.
 */
export type OverrideTarget = OverrideByTransfer | FirstOverrideOfNonce | OverrideReference;
/** @deprecated Use `OverrideTarget`. */
export type ApprovalRequest = OverrideTarget;
/** @deprecated Use `OverrideByTransfer`. */
export type ApprovalByTransfer = OverrideByTransfer;
/** @deprecated Use `FirstOverrideOfNonce`. */
export type FirstApprovalOfNonce = FirstOverrideOfNonce;

/** The resolved address: `transfer` undefined only for the nonce's first request. */
interface ResolvedAddress {
  vault: string;
  nonce: string;
  transfer: string | undefined;
}

const AMBIGUOUS =
  'needs the override named unambiguously: { vault, nonce, transfer } with the blocked transfer’s signature, the override object the API returned, or { vault, nonce, first: true } for the first override that announced this nonce';

/** The transfer an override's blinkUrl carries (`?transfer=`), after checking it is that override's. */
function transferOfLink(link: string, vault: string, nonce: string, what: string): string | undefined {
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    throw new TypeError(`${what}: the override's blinkUrl is not a URL`);
  }
  const [linkNonce, linkVault] = url.pathname.split('/').reverse().map(decodeURIComponent);
  if (linkVault !== vault || linkNonce !== nonce) {
    throw new TypeError(`${what}: the override's blinkUrl names another override than its vault and nonce`);
  }
  return url.searchParams.get('transfer') ?? undefined;
}

/** The address of the override a decision names; a TypeError (nothing sent) when it could name another. */
export function resolveOverrideTarget(request: OverrideTarget, what: string): ResolvedAddress {
  // Read as plain data: JavaScript callers may pass anything.
  const r = (typeof request === 'object' && request !== null ? request : {}) as Record<string, unknown>;
  const nonce = r.nonce;
  if (
    typeof r.vault !== 'string' ||
    (typeof nonce !== 'string' && typeof nonce !== 'number' && typeof nonce !== 'bigint')
  ) {
    throw new TypeError(`${what} ${AMBIGUOUS}`);
  }
  const at = { vault: r.vault, nonce: String(nonce) };
  const transfer = typeof r.transfer === 'string' && r.transfer !== '' ? r.transfer : undefined;
  if (transfer !== undefined && r.first === true) {
    throw new TypeError(`${what}: give either transfer or first: true, not both`);
  }
  if (transfer !== undefined) return { ...at, transfer };
  if (r.first === true) return { ...at, transfer: undefined };
  // An override: its blinkUrl is the canonical address (an override created on chain without a blocked
  // transfer has transferSignature null, yet needs ?transfer= when it is not its nonce's first).
  if (typeof r.blinkUrl === 'string') {
    return { ...at, transfer: transferOfLink(r.blinkUrl, at.vault, at.nonce, what) };
  }
  if (typeof r.transferSignature === 'string') return { ...at, transfer: r.transferSignature };
  throw new TypeError(`${what} ${AMBIGUOUS}`);
}

function decisionRoutes(t: Transport) {
  /** A POST to one override's Action route; a target that could be another is refused before sending. */
  const post =
    <T>(rest: string, auth: 'optional' | 'none') =>
    async (what: string, request: OverrideTarget, body: unknown, o: CallOptions) => {
      const at = resolveOverrideTarget(request, what);
      return t.request<T>({
        method: 'POST',
        path: `/api/actions/${seg(at.vault)}/${seg(at.nonce)}${rest}`,
        query: { transfer: at.transfer },
        body,
        auth,
        ...o,
      });
    };
  // Approve and reject are signed when the signer is a wallet; the confirmations carry their own signature.
  return {
    approve: post<ActionTransaction>('/approve', 'optional'),
    confirm: post<CompletedAction>('/approve/confirm', 'none'),
    reject: post<RejectResponse>('/reject', 'optional'),
    confirmReject: post<CompletedAction>('/reject/confirm', 'none'),
  };
}

/** The override and the deciding wallet, in one object: `{ ...override, account }` or `{ vault, nonce, transfer, account }`. */
export type ApprovalInput<Extra = object> = OverrideTarget & { account: string } & Extra;

/** The longest the service holds one request (its waitMs maximum). */
const MAX_HOLD_MS = 50_000;

/** What an agent holds after a block: waiting for the owner's decision on its transfer. */
function agentMethods(t: Transport) {
  const read = ({ vault, signature }: ApprovalQuery, waitMs: number, o: CallOptions) =>
    t.request<Approval>({
      method: 'GET',
      path: `/api/vaults/${seg(vault)}/approvals/${seg(signature)}`,
      query: { waitMs: waitMs > 0 ? waitMs : undefined },
      ...o,
    });
  return {
    /** The approval of the blocked transfer with this signature (the decision on its override), as of now. */
    get: (query: ApprovalQuery, o: CallOptions = {}) => read(query, 0, o),
    /**
     * Resolves once the owner decided (approved, executed, rejected) or the override expired, or with
     * `pending` when `timeoutMs` (default 60 s) passes; `none` at once for a transfer that asked for
     * no approval or that the service has not seen (amount null: ask again once it is ingested). The
     * service holds each request until something changes, so waiting costs about one request a
     * minute, and the answer comes within a second of the decision.
     */
    wait: async ({ timeoutMs = 60_000, signal, ...query }: ApprovalWaitOptions): Promise<Approval> => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const left = Math.max(0, deadline - Date.now());
        const approval = await read(query, Math.min(left, MAX_HOLD_MS), { signal });
        if (approval.status !== 'pending' || Date.now() >= deadline) return approval;
      }
    },
  };
}

/** The owner's decision on one override: see what approving signs, approve, confirm, or reject; and an agent's wait for it. */
export function approvalMethods(t: Transport) {
  const routes = decisionRoutes(t);
  return {
    ...agentMethods(t),
    /**
     * The approve transaction for `account` (the vault authority), simulated: instructions, compute
     * units, fees and balance changes, or why it would fail (`simulationError`). Nothing is signed.
     */
    preview: async (input: ApprovalInput, o: CallOptions = {}) => {
      const at = resolveOverrideTarget(input, 'approvals.preview');
      return t.request<TransactionPreview>({
        method: 'GET',
        path: `/api/overrides/${seg(at.vault)}/${seg(at.nonce)}/preview`,
        query: { account: input.account, transfer: at.transfer },
        ...o,
      });
    },
    /** The unsigned transaction approving this override and executing its transfer, for `account` to sign. */
    approve: (input: ApprovalInput, o: CallOptions = {}) =>
      routes.approve('approvals.approve', input, { account: input.account }, o),
    /** After sending the approve transaction: reads it from the cluster → the completed Action. */
    confirm: (input: ApprovalInput<{ signature: string }>, o: CallOptions = {}) =>
      routes.confirm('approvals.confirm', input, { account: input.account, signature: input.signature }, o),
    /** With a wallet signer, rejects at once (`post`); without one, answers the message to sign (`message`). */
    reject: (input: ApprovalInput, o: CallOptions = {}) =>
      routes.reject('approvals.reject', input, { account: input.account }, o),
    /** The second step of a rejection without a signer: the signed message → the completed Action. */
    confirmReject: (input: ApprovalInput<Omit<ConfirmRejectBody, 'account'>>, o: CallOptions = {}) =>
      routes.confirmReject(
        'approvals.confirmReject',
        input,
        { account: input.account, signature: input.signature, data: input.data, state: input.state },
        o,
      ),
  };
}

/** The Blink transport: actions.json, an override's Action metadata, and (deprecated) its decision POSTs. */
export function actionMethods(t: Transport) {
  const routes = decisionRoutes(t);
  return {
    /** actions.json: which URLs of the host are Action APIs. */
    rules: (o: CallOptions = {}) => t.request<ActionsJson>({ method: 'GET', path: '/actions.json', ...o }),
    /** The Blink metadata of an override (`{ vault, nonce }` reads the nonce's first override). */
    get: (at: OverrideAddress, o: CallOptions = {}) =>
      t.request<ActionMetadata>({
        method: 'GET',
        path: `/api/actions/${seg(at.vault)}/${seg(at.nonce)}`,
        query: { transfer: at.transfer },
        ...o,
      }),
    /** @deprecated Use `approvals.approve({ ...override, account })`. */
    approve: (at: OverrideTarget, body: ActionPostRequest, o: CallOptions = {}) =>
      routes.approve('actions.approve', at, body, o),
    /** @deprecated Use `approvals.reject({ ...override, account })`. */
    reject: (at: OverrideTarget, body: ActionPostRequest, o: CallOptions = {}) =>
      routes.reject('actions.reject', at, body, o),
    /** @deprecated Use `approvals.confirmReject({ ...override, account, signature, data, state })`. */
    confirmReject: (at: OverrideTarget, body: ConfirmRejectBody, o: CallOptions = {}) =>
      routes.confirmReject('actions.confirmReject', at, body, o),
  };
}
