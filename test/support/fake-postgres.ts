// A PostgreSQL server that only refuses: it asks for a password and answers the one error the
// protocol sends for a wrong one (v3 frames: 'R' AuthenticationCleartextPassword, then 'E').
import { createServer, type Server, type Socket } from 'node:net';

export interface FakePostgres {
  readonly port: number;
  close(): Promise<void>;
}

function errorResponse(fields: Record<string, string>): Buffer {
  const body = Buffer.concat([
    ...Object.entries(fields).map(([key, value]) => Buffer.from(`${key}${value}\0`, 'utf8')),
    Buffer.from([0]),
  ]);
  const header = Buffer.alloc(5);
  header.write('E', 0);
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}

function refuse(socket: Socket): void {
  let startup = true;
  socket.on('data', () => {
    if (startup) {
      startup = false;
      const ask = Buffer.alloc(9);
      ask.write('R', 0);
      ask.writeInt32BE(8, 1);
      ask.writeInt32BE(3, 5); // cleartext password
      socket.write(ask);
      return;
    }
    socket.end(
      errorResponse({
        S: 'FATAL',
        V: 'FATAL',
        C: '28P01',
        M: 'password authentication failed for user "vk"',
      }),
    );
  });
  socket.on('error', () => {});
}

export async function startFakePostgres(): Promise<FakePostgres> {
  const server: Server = createServer(refuse);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
