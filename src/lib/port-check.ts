// Whether this process could listen on a port, asked before anything starts so a busy port stops the
// start at once (and no ingestor or worker runs for a service that cannot serve).
import { createServer } from 'node:net';
import { StartError } from './start-error.js';

/** A listen error (EADDRINUSE, EACCES) as what the operator can do about it; null for any other. */
export function describeListenError(error: unknown, port: number, host: string): StartError | null {
  const code = (error as NodeJS.ErrnoException)?.code;
  if (code === 'EADDRINUSE') {
    return new StartError(
      `port ${port} on ${host} is already in use by another process`,
      `stop that process, or set PORT to a free port (e.g. PORT=${port + 1})`,
    );
  }
  if (code === 'EACCES') {
    return new StartError(
      `not allowed to listen on port ${port} on ${host}`,
      'ports below 1024 need privileges: set PORT to 1024 or above, and put a proxy in front',
    );
  }
  if (code === 'EADDRNOTAVAIL') {
    return new StartError(
      `${host} is not an address of this machine`,
      'set HOST to one of its addresses, or 0.0.0.0',
    );
  }
  return null;
}

/** Throws a StartError when the port cannot be listened on now; port 0 (any free port) always can. */
export async function assertPortFree(port: number, host: string): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const server = createServer();
    server.once('error', (error) => reject(describeListenError(error, port, host) ?? error));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve()));
  });
}
