/** What health reports about the chain feed. */
export interface ChainHealth {
  status: 'connected' | 'connecting' | 'disconnected';
  /** The live source the ingestor uses: the gRPC stream or the WebSocket log subscription (null when down). */
  source: 'grpc' | 'websocket' | null;
  cluster: string;
  lastSlot: number | null;
  lastEventAt: string | null;
  lagSeconds: number | null;
}

/** Where health reads the chain feed's state from (the ingestor, or the database in API-only processes). */
export interface ChainStatusSource {
  get(): Promise<ChainHealth>;
}

export function createDisconnectedChainStatus(cluster: string): ChainStatusSource {
  return {
    async get() {
      return {
        status: 'disconnected',
        source: null,
        cluster,
        lastSlot: null,
        lastEventAt: null,
        lagSeconds: null,
      };
    },
  };
}
