// A deliberate, steady leak preloaded into the service process (`node --import` this file) by
// `npm run soak -- --inject-leak memory|fds|sockets`, so the soak can show it catches one without a line
// of the service changed. SOAK_INJECT_LEAK names the kind:
//   memory   100 MB a minute of retained buffers (written, so the pages are resident)
//   fds      one open file descriptor a second (/dev/null, never closed)
//   sockets  one TCP connection a second to a listener of this module, never closed (two sockets each)
// Plain JavaScript: the service runs under node without tsx.
import { openSync } from 'node:fs';
import { connect, createServer } from 'node:net';

const kind = process.env.SOAK_INJECT_LEAK;
const retained = [];
const every = (ms, leak) => setInterval(leak, ms).unref();

if (kind === 'memory') {
  // 5 MB every 3 s.
  every(3_000, () => retained.push(Buffer.alloc(5 * 2 ** 20, 1)));
} else if (kind === 'fds') {
  every(1_000, () => retained.push(openSync('/dev/null', 'r')));
} else if (kind === 'sockets') {
  const server = createServer((socket) => {
    socket.unref();
    retained.push(socket);
  });
  server.listen(0, '127.0.0.1', () => {
    server.unref();
    const { port } = server.address();
    every(1_000, () => {
      const socket = connect(port, '127.0.0.1');
      socket.unref();
      retained.push(socket);
    });
  });
} else if (kind !== undefined) {
  throw new Error(`SOAK_INJECT_LEAK must be memory, fds or sockets, not ${kind}`);
}
