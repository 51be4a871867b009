// A loopback TCP proxy that can be cut and restored: a database or cache "going down" at the network edge.
import { type AddressInfo, createConnection, createServer, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  readonly port: number;
  /** Drops every open connection and refuses new ones. */
  cut(): Promise<void>;
  /** Accepts connections again on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

/** A server on 127.0.0.1 that can be stopped (every connection dropped) and started again on its port. */
export interface RestartableServer {
  readonly port: number;
  /** Connections to drop on stop, besides the accepted ones (e.g. upstream links). */
  readonly sockets: Set<Socket>;
  stop(): Promise<void>;
  start(): Promise<void>;
}

export async function listenRestartable(create: () => Server): Promise<RestartableServer> {
  const sockets = new Set<Socket>();
  const listen = (port: number) =>
    new Promise<Server>((resolve, reject) => {
      const next = create();
      next.on('connection', (socket: Socket) => {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
      });
      next.once('error', reject);
      next.listen(port, '127.0.0.1', () => resolve(next));
    });
  let server = await listen(0);
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    sockets,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        sockets.clear();
        server.close(() => resolve());
      }),
    async start() {
      server = await listen(port);
    },
  };
}

type Target = { host: string; port: number };

/** `target` may be a function, read at each connection: for a server that listens after the proxy. */
export async function startTcpProxy(target: Target | (() => Target)): Promise<TcpProxy> {
  const restartable = await listenRestartable(() =>
    createServer((client) => {
      const upstream = createConnection(typeof target === 'function' ? target() : target);
      restartable.sockets.add(upstream);
      const drop = () => {
        client.destroy();
        upstream.destroy();
        restartable.sockets.delete(upstream);
      };
      client.on('error', drop).on('close', drop);
      upstream.on('error', drop).on('close', drop);
      client.pipe(upstream).pipe(client);
    }),
  );
  return {
    port: restartable.port,
    cut: restartable.stop,
    restore: restartable.start,
    close: restartable.stop,
  };
}
