// Liveness and readiness of one process, per role: what orchestrators probe (/livez, /readyz).
import type { RoleStatus } from '../../lib/role-status.js';
import { createSharedResult } from '../../lib/shared-result.js';
import type { Storage } from '../../storage/database.js';
import { HEALTH_CHECK_REUSE_MS } from './health.js';

export type RoleName = 'api' | 'ingestor' | 'worker';

export interface Check {
  ok: boolean;
  detail: string;
}

export interface Readiness {
  status: 'ready' | 'not_ready';
  roles: RoleName[];
  checks: Record<string, Check>;
}

export interface Liveness {
  status: 'alive';
  uptime: number;
  checks: { eventLoop: Check };
}

/** A worker that has not finished a claim query for this long is stuck, not idle (it polls every 200 ms). */
export const WORKER_CLAIM_STALE_MS = 30_000;

export interface ReadinessDeps {
  readonly storage: Pick<Storage, 'ping'>;
  readonly roles: readonly RoleName[];
  readonly roleStatus: RoleStatus;
  readonly startedAt: number;
  readonly now?: () => number;
}

export function createReadinessService(deps: ReadinessDeps) {
  const now = deps.now ?? Date.now;
  // The probe is public and exempt from rate limits: callers share the ping, at most one a second.
  const pingDatabase = createSharedResult(() => deps.storage.ping(2_000), {
    reuseMs: HEALTH_CHECK_REUSE_MS,
    now,
  });
  const checkRole: Record<RoleName, () => Check> = {
    api: () =>
      deps.roleStatus.api.accepting
        ? { ok: true, detail: 'accepting requests' }
        : { ok: false, detail: 'not accepting requests (starting or shutting down)' },
    ingestor: () => {
      const status = deps.roleStatus.ingestor;
      if (status.state === 'standby')
        return { ok: true, detail: 'standby: another process holds the ingestor lock' };
      if (status.state !== 'active') return { ok: false, detail: 'not running' };
      return status.feedConnected
        ? {
            ok: true,
            detail: `holds the ingestor lock; live feed up (${status.feedSource}) via ${status.feedEndpoint}`,
          }
        : { ok: false, detail: 'holds the ingestor lock; live feed down' };
    },
    worker: () => {
      const status = deps.roleStatus.worker;
      if (!status.running) return { ok: false, detail: 'not running' };
      if (status.lastClaimAt === null) return { ok: false, detail: 'no claim yet' };
      if (status.lastClaimFailed) return { ok: false, detail: 'the last claim failed' };
      const age = now() - status.lastClaimAt;
      return age <= WORKER_CLAIM_STALE_MS
        ? { ok: true, detail: `claiming; ${status.inFlight()} deliveries in flight` }
        : { ok: false, detail: `no claim for ${Math.round(age / 1000)} s` };
    },
  };

  return {
    async getReadiness(): Promise<Readiness> {
      const databaseUp = await pingDatabase();
      const checks: Record<string, Check> = {
        database: databaseUp
          ? { ok: true, detail: 'reachable' }
          : { ok: false, detail: 'unreachable or slower than 2 s' },
      };
      for (const role of deps.roles) checks[role] = checkRole[role]();
      const ready = Object.values(checks).every((c) => c.ok);
      return { status: ready ? 'ready' : 'not_ready', roles: [...deps.roles], checks };
    },
    getLiveness(eventLoopDelayMs: number): Liveness {
      return {
        status: 'alive',
        uptime: Math.round((now() - deps.startedAt) / 10) / 100,
        checks: { eventLoop: { ok: true, detail: `turning; p99 delay ${eventLoopDelayMs} ms` } },
      };
    },
  };
}

export type ReadinessService = ReturnType<typeof createReadinessService>;
