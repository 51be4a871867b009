// The audit trail of writes (docs/AUDIT.md): a route with `config.audit` leaves one entry per request
// whose actor is known (a verified wallet or key, or the account a Blink confirmation names), done or
// refused. The handler hands `request.auditStamp` to its use case, which records a done write in the
// write's own transaction; what it did not record (a refusal, a route whose use case takes no stamp)
// is written here before the answer leaves.
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import type { KeyVaultResolver } from '../../domain/api-keys/key-vaults.js';
import type { AuditService, AuditStamp } from '../../domain/audit/audit-service.js';
import type { KeyVaultSource } from './route-scope.js';

/** A success's answer as sent (a creation's id is there), or null. */
export type AuditAnswer = Readonly<Record<string, unknown>> | null;

export interface RouteAudit {
  /** What is done, `<resource>.<verb>` (docs/AUDIT.md lists them). */
  readonly action: string;
  /** What it is done to, e.g. `webhook:<id>`; `vault` is the vault the request names, resolved. */
  readonly target: (request: FastifyRequest, answer: AuditAnswer, vault: string | null) => string;
  /** The vault, where `config.keyVault` does not name it (a creation's answer, an Action's path). */
  readonly vault?: (request: FastifyRequest, answer: AuditAnswer) => string | undefined;
  /** Who acts on routes without wallet auth (a Blink confirmation: the account that signed). */
  readonly actor?: (request: FastifyRequest) => string | undefined;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    audit?: RouteAudit;
  }
  interface FastifyRequest {
    /** The vault the audited request names, read before the handler runs (a deletion removes it). */
    auditVault: { vault: string | null } | null;
    /** Who writes, for the use case to record its write with; null on unaudited routes. */
    auditStamp: AuditStamp | null;
  }
}

export interface AuditTrailOptions {
  readonly audit: Pick<AuditService, 'recordAuditEntry'>;
  readonly resolver: KeyVaultResolver;
}

/** The request's path parameters, query or body as a record of strings. */
export function requestPart(request: FastifyRequest, part: 'params' | 'query' | 'body') {
  const value = request[part];
  return (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
}

async function resolveVault(
  request: FastifyRequest,
  source: KeyVaultSource | undefined,
  resolver: KeyVaultResolver,
): Promise<string | null> {
  const named = source === undefined ? undefined : requestPart(request, source.in)[source.name];
  if (source === undefined || typeof named !== 'string') return null;
  const vault =
    source.kind === 'vault' ? await resolver.vaultAddressOf(named) : await resolver.webhookVaultOf(named);
  return vault ?? null;
}

function parseAnswer(payload: unknown): AuditAnswer {
  if (typeof payload !== 'string' || !payload.startsWith('{')) return null;
  try {
    return JSON.parse(payload) as Record<string, unknown>;
  } catch {
    return null;
  }
}

/** `ok`, or `refused:<code>` for a 4xx and `failed:<code>` for a 5xx, the code from the error envelope. */
function outcomeOf(status: number, answer: AuditAnswer): string {
  if (status < 400) return 'ok';
  const code = typeof answer?.code === 'string' ? answer.code : String(status);
  return `${status >= 500 ? 'failed' : 'refused'}:${code}`;
}

/** The stamp of a request whose actor is known; null otherwise (nothing is recorded then). */
function stampOf(request: FastifyRequest, audit: RouteAudit): AuditStamp | null {
  const wallet = request.wallet ?? audit.actor?.(request);
  if (wallet === undefined || wallet === null) return null;
  return {
    owner: wallet,
    actor: request.apiKey === null ? `wallet:${wallet}` : `key:${request.apiKey.id}`,
    action: audit.action,
    requestId: request.id,
    client: request.networkKey,
    recorded: false,
  };
}

async function recordRequest(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  options: AuditTrailOptions,
): Promise<void> {
  const config = request.routeOptions.config;
  const audit = config.audit!;
  if (reply.statusCode < 400 && request.auditStamp?.recorded === true) return;
  const stamp = request.auditStamp ?? stampOf(request, audit);
  if (stamp === null) return;
  const parsed = parseAnswer(payload);
  const answer = reply.statusCode < 400 ? parsed : null;
  const vault =
    audit.vault?.(request, answer) ??
    (request.auditVault ?? { vault: await resolveVault(request, config.keyVault, options.resolver) }).vault;
  const { recorded: _recorded, ...who } = stamp;
  await options.audit.recordAuditEntry({
    ...who,
    vault,
    target: audit.target(request, answer, vault),
    outcome: outcomeOf(reply.statusCode, parsed),
  });
}

/** `<kind>:<the path parameter>`, e.g. `webhook:<id>`. */
export const paramTarget =
  (kind: string, name = 'id') =>
  (request: FastifyRequest): string =>
    `${kind}:${String(requestPart(request, 'params')[name] ?? '')}`;

/** `vault:<address>`: the vault the request names, as an address even when named by its record id. */
export const vaultTarget = (request: FastifyRequest, _answer: AuditAnswer, vault: string | null): string =>
  `vault:${vault ?? String(requestPart(request, 'params').address ?? '')}`;

/** `<kind>:<the answer's id>` for a creation (`<kind>:new` when it was refused). */
export const createdTarget =
  (kind: string) =>
  (_request: FastifyRequest, answer: AuditAnswer): string =>
    `${kind}:${typeof answer?.id === 'string' ? answer.id : 'new'}`;

function appendHook(route: RouteOptions, kind: 'preHandler' | 'onSend', hook: unknown): void {
  const options = route as unknown as Record<string, unknown>;
  const existing = options[kind];
  options[kind] = [...(existing === undefined ? [] : Array.isArray(existing) ? existing : [existing]), hook];
}

export const auditTrailPlugin = fp<AuditTrailOptions>(
  async (app: FastifyInstance, options) => {
    app.decorateRequest('auditVault', null);
    app.decorateRequest('auditStamp', null);
    app.addHook('onRoute', (route) => {
      const audit = route.config?.audit;
      if (audit === undefined) return;
      const source = route.config?.keyVault;
      appendHook(route, 'preHandler', async (request: FastifyRequest) => {
        request.auditStamp = stampOf(request, audit);
        if (source !== undefined) {
          request.auditVault = { vault: await resolveVault(request, source, options.resolver) };
        }
      });
      appendHook(route, 'onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
        try {
          await recordRequest(request, reply, payload, options);
        } catch (error) {
          // The act is done (or refused) either way: a lost entry is logged loudly, the answer still leaves.
          request.log.error(
            { err: error, action: request.routeOptions.config.audit?.action },
            'audit entry not recorded',
          );
        }
        return payload;
      });
    });
  },
  { name: 'audit-trail', dependencies: ['vaultkeeper-client-key', 'route-scope'] },
);
