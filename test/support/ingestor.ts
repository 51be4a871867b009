// The real ingestor, in process: start and stop. Test files start it through useTestApps (test-apps.ts).
import type { AppDeps } from '../../src/app-deps.js';
import { type IngestorOptions, runIngestor } from '../../src/chain/ingestor.js';

export interface TestIngestor {
  stop(): Promise<void>;
}

export function startTestIngestor(deps: AppDeps, options: IngestorOptions = {}): TestIngestor {
  const controller = new AbortController();
  const task = runIngestor(deps, controller.signal, { heartbeatMs: 100, ...options });
  return {
    async stop() {
      controller.abort();
      await task;
    },
  };
}
