// Solana Actions (Blinks): approve or reject a blocked transfer from a wallet.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ActionService } from '../../domain/actions/action-service.js';
import { type RouteAudit, requestPart } from '../plugins/audit-trail.js';
import { described } from '../schemas/common.js';
import {
  ActionMetadataResponse,
  ActionParams,
  ActionPostBody,
  ActionQuery,
  ActionsJson,
  actionErrors,
  CompletedAction,
  ConfirmApproveBody,
  ConfirmRejectBody,
  RejectResponse,
  TransactionResponse,
} from './actions.schemas.js';

export const ACTION_CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET,POST,PUT,OPTIONS',
  'access-control-allow-headers':
    'Content-Type, Authorization, Content-Encoding, Accept-Encoding, X-Accept-Action-Version, X-Accept-Blockchain-Ids, X-Wallet-Address, X-Signature, X-Message',
  'access-control-expose-headers': 'X-Action-Version, X-Blockchain-Ids',
  'x-action-version': '2.4',
} as const;

const ACTION = { actionEnvelope: true } as const;

/** An owner's decision on an override, for the audit trail; `signed`: the actor is the body's account. */
function decisionAudit(action: string, signed: boolean): RouteAudit {
  const params = (request: FastifyRequest) => requestPart(request, 'params');
  const account = (request: FastifyRequest) => requestPart(request, 'body').account;
  return {
    action,
    target: (request) => `override:${String(params(request).vault)}/${String(params(request).nonce)}`,
    vault: (request) => String(params(request).vault),
    ...(signed
      ? {
          actor: (request) => {
            const a = account(request);
            return typeof a === 'string' ? a : undefined;
          },
        }
      : {}),
  };
}
const TAGS = ['actions'];

export const actionsRoutes: FastifyPluginAsyncTypebox<{ actions: ActionService }> = async (
  app,
  { actions },
) => {
  // Every reply of this plugin, errors and 404s included, carries the Actions headers.
  app.addHook('onSend', async (request, reply, payload) => {
    reply.headers(ACTION_CORS_HEADERS);
    reply.header('x-blockchain-ids', await actions.getBlockchainId());
    if (!reply.hasHeader('cache-control')) {
      reply.header('cache-control', request.method === 'GET' ? 'no-cache' : 'no-store');
    }
    return payload;
  });

  app.options('/actions.json', { schema: { hide: true }, config: ACTION }, preflight);
  app.get(
    '/actions.json',
    {
      config: ACTION,
      schema: {
        operationId: 'getActionsJson',
        tags: TAGS,
        summary: 'Solana Actions rules: which URLs of this host are Action APIs',
        response: {
          200: described(ActionsJson, "The rules that map Blink URLs to this service's Action routes"),
          ...actionErrors(),
        },
      },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'public, max-age=3600');
      return {
        rules: [
          { pathPattern: '/api/actions/**', apiPath: '/api/actions/**' },
          // An approval page unfurls as its Blink (a `?transfer=` query is carried over).
          { pathPattern: '/overrides/*/*', apiPath: '/api/actions/*/*' },
        ],
      };
    },
  );
  await app.register(actionRoutes, { actions, prefix: '/api/actions' });
};

const actionRoutes: FastifyPluginAsyncTypebox<{ actions: ActionService }> = async (app, { actions }) => {
  const icon = readIcon();
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({
      message: 'Route not found',
      error: 'Route not found',
      code: 'NOT_FOUND',
      details: { method: request.method, path: request.url.split('?')[0] },
    }),
  );
  app.options('/*', { schema: { hide: true }, config: ACTION }, preflight);

  app.get(
    '/icon.svg',
    {
      config: ACTION,
      schema: {
        operationId: 'getActionIcon',
        tags: TAGS,
        summary: 'The icon every Blink of this service shows',
        response: {
          200: { description: 'SVG image', content: { 'image/svg+xml': { schema: {} } } },
          ...actionErrors(),
        },
      },
    },
    async (_request, reply) =>
      reply
        .type('image/svg+xml')
        .header('cache-control', 'public, max-age=86400')
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
        .send(icon),
  );

  app.get(
    '/:vault/:nonce',
    {
      config: ACTION,
      schema: {
        operationId: 'getApprovalAction',
        tags: TAGS,
        summary: 'The Blink of an override: the Action metadata a wallet shows to approve or reject it',
        params: ActionParams,
        querystring: ActionQuery,
        response: {
          200: described(
            ActionMetadataResponse,
            'The Action a wallet shows: approve or reject the blocked transfer (disabled when no longer pending)',
          ),
          ...actionErrors(),
        },
      },
    },
    async (request) => actions.getAction(addressOf(request)),
  );
  await app.register(actionDecisionRoutes, { actions });
};

/** The POSTs of an Action: approve, reject, and the confirmation of a signed rejection. */
const actionDecisionRoutes: FastifyPluginAsyncTypebox<{ actions: ActionService }> = async (
  app,
  { actions },
) => {
  registerApproveRoutes(app, actions);

  app.post(
    '/:vault/:nonce/reject',
    {
      // Audited when wallet headers make it a rejection; without them it only answers a message to sign.
      config: { ...ACTION, auth: 'optional', apiKeys: false, audit: decisionAudit('override.reject', false) },
      schema: {
        operationId: 'rejectOverrideAction',
        tags: TAGS,
        summary:
          'Reject the override (an approval decision): at once with wallet-auth headers, else through a signed message',
        params: ActionParams,
        querystring: ActionQuery,
        body: ActionPostBody,
        response: {
          200: described(
            RejectResponse,
            'Rejected at once (signed headers), or a message for the wallet to sign first',
          ),
          ...actionErrors(401, 403, 409),
        },
      },
    },
    async (request) => actions.reject(addressOf(request), decision(request), request.auditStamp),
  );

  app.post(
    '/:vault/:nonce/reject/confirm',
    {
      config: { ...ACTION, audit: decisionAudit('override.reject', true) },
      schema: {
        operationId: 'confirmOverrideRejection',
        tags: TAGS,
        summary: 'Second step of the sign-message rejection: verify the signature, then reject the override',
        params: ActionParams,
        querystring: ActionQuery,
        body: ConfirmRejectBody,
        response: {
          200: described(CompletedAction, 'The override is rejected: a completed Action'),
          ...actionErrors(401, 403, 409),
        },
      },
    },
    async (request) => actions.confirmReject(addressOf(request), request.body, request.auditStamp),
  );
};

/** Approve and its confirmation (Actions chaining: links.next). */
function registerApproveRoutes(app: Parameters<FastifyPluginAsyncTypebox>[0], actions: ActionService): void {
  app.post(
    '/:vault/:nonce/approve',
    {
      config: { ...ACTION, auth: 'optional', apiKeys: false },
      schema: {
        operationId: 'approveOverrideAction',
        tags: TAGS,
        summary: 'Transaction that approves the override and executes its transfer (signed by the authority)',
        description:
          'Wallet-auth headers are optional (wallets send only `account`); when present they must name `account`.',
        params: ActionParams,
        querystring: ActionQuery,
        body: ActionPostBody,
        response: {
          200: described(
            TransactionResponse,
            'The simulated transaction for the wallet to sign: compute budget, create (when needed), approve and execute the override',
          ),
          ...actionErrors(401, 403, 409, 422, 503),
        },
      },
    },
    async (request) => actions.approve(addressOf(request), decision(request), request),
  );

  app.post(
    '/:vault/:nonce/approve/confirm',
    {
      config: { ...ACTION, audit: decisionAudit('override.approve', true) },
      schema: {
        tags: TAGS,
        operationId: 'confirmOverrideApproval',
        summary:
          'Action chaining after approve: the sent signature, read from the cluster → the approval, as a completed Action',
        description:
          "`account` must be the vault authority (403 before anything is asked of the cluster). Polls the signature's status (backing off from 250 ms to 2 s) for up to 10 s until it is `confirmed`, then reads the transaction. 422 TRANSACTION_FAILED when it failed on-chain, 422 TRANSACTION_MISMATCH when it does not approve this override, 404 TRANSACTION_NOT_FOUND when it never appears.",
        params: ActionParams,
        querystring: ActionQuery,
        body: ConfirmApproveBody,
        response: {
          200: described(
            CompletedAction,
            'The approval landed: a completed Action naming amount, destination and signature',
          ),
          ...actionErrors(403, 422, 503),
        },
      },
    },
    async (request) =>
      actions.confirmApprove(
        addressOf(request),
        { account: request.body.account, signature: request.body.signature },
        request,
      ),
  );
}

function addressOf(request: {
  params: { vault: string; nonce: string };
  query: { transfer?: string | undefined };
}) {
  return { vault: request.params.vault, nonce: request.params.nonce, transfer: request.query.transfer };
}

function decision(request: { body: { account: string }; wallet: string | null }) {
  return { account: request.body.account, wallet: request.wallet };
}

async function preflight(_request: FastifyRequest, reply: FastifyReply) {
  return reply.code(204).send();
}

/** The committed icon, from the repository root (src/http/routes or dist/http/routes). */
function readIcon(): Buffer {
  const here = dirname(fileURLToPath(import.meta.url));
  const path = resolve(here, '../../../public/vaultkeeper-icon.svg');
  if (!existsSync(path)) throw new Error(`Blink icon missing: ${path}`);
  return readFileSync(path);
}
