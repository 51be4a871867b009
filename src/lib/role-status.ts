// What each role of this process is doing right now, written by the role loops and read by the
// readiness probe and the per-role metrics.

export interface IngestorStatus {
  /** standby: waiting for the ingestor lock another process holds; active: this process ingests. */
  state: 'stopped' | 'standby' | 'active';
  feedConnected: boolean;
  /** scheme://host of the RPC endpoint (or gRPC provider) the live feed uses (null while down). */
  feedEndpoint: string | null;
  /** The live source in use: the gRPC stream or the WebSocket log subscription (null while down). */
  feedSource: 'grpc' | 'websocket' | null;
  /** Since when the oldest signature seen but not yet committed has waited (null when caught up). */
  behindSince: () => Date | null;
}

export interface WorkerStatus {
  running: boolean;
  /** When the last claim query finished (ms since epoch), and whether it failed. */
  lastClaimAt: number | null;
  lastClaimFailed: boolean;
  inFlight: () => number;
}

export interface RoleStatus {
  api: { accepting: boolean };
  ingestor: IngestorStatus;
  worker: WorkerStatus;
}

export function createRoleStatus(): RoleStatus {
  return {
    api: { accepting: false },
    ingestor: {
      state: 'stopped',
      feedConnected: false,
      feedEndpoint: null,
      feedSource: null,
      behindSince: () => null,
    },
    worker: { running: false, lastClaimAt: null, lastClaimFailed: false, inFlight: () => 0 },
  };
}
