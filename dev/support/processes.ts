// Child processes of HTTP benchmarks: free ports, readiness, CPU time and peak RSS from /proc (Linux).
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';

const CLOCK_TICKS_PER_SECOND = 100;

// Children die with the benchmark, whatever ends it.
const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/** User + system CPU seconds a process has used (0 once it is gone). */
export function processCpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

export interface ServerProcess {
  readonly baseUrl: string;
  readonly child: ChildProcess;
  /** User + system CPU seconds the process has used so far. */
  cpuSeconds(): number;
  /** Peak resident set size so far (VmHWM), in MB. */
  peakRssMb(): number;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });
}

async function waitForHttp(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${url}: process exited with ${child.exitCode}`);
    try {
      await (await fetch(url)).arrayBuffer();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    child.once('exit', () => done());
    child.kill('SIGTERM');
  });
}

/** Starts `node <args>` with PORT set, and waits until `readyPath` answers. */
export async function startServer(options: {
  args: readonly string[];
  env: Record<string, string>;
  cwd: string;
  readyPath?: string;
  timeoutMs?: number;
}): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [...options.args], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: String(port), ...options.env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitForHttp(`${baseUrl}${options.readyPath ?? '/'}`, child, options.timeoutMs ?? 60_000);
  const status = () => readFileSync(`/proc/${child.pid}/status`, 'utf8');
  return {
    baseUrl,
    child,
    cpuSeconds: () => processCpuSeconds(child.pid!),
    peakRssMb: () => Math.round(Number(/VmHWM:\s+(\d+)/.exec(status())?.[1] ?? 0) / 1024),
    stop: () => stopChild(child),
  };
}

/** The platform's ceiling: node:http answering every request with one fixed JSON body. */
export function startCeiling(body: string, cwd: string): Promise<ServerProcess> {
  const source = `
    const http = require('node:http');
    const body = Buffer.from(process.env.BODY);
    http.createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
      res.end(body);
    }).listen(Number(process.env.PORT), process.env.HOST);`;
  return startServer({ args: ['-e', source], env: { BODY: body }, cwd });
}

/** Builds dist/ as `npm run build` does; type errors elsewhere in the tree still emit JavaScript. */
export function buildDist(root: string, log: (line: string) => void): void {
  const tsc = resolve(root, 'node_modules/typescript/bin/tsc');
  const build = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
    cwd: root,
    encoding: 'utf8',
  });
  if (!existsSync(resolve(root, 'dist/main.js')))
    throw new Error(`build failed:\n${build.stdout}${build.stderr}`);
  if (build.status !== 0) log('  (tsc reported type errors; running what it emitted)');
}

/** The service as production runs it (from dist/, or src/ through tsx): the api role behind one proxy hop. */
export function startApiService(options: {
  root: string;
  tsx: boolean;
  env: Record<string, string>;
}): Promise<ServerProcess> {
  return startServer({
    args: options.tsx ? ['--import', 'tsx', 'src/main.ts'] : ['dist/main.js'],
    cwd: options.root,
    readyPath: '/api/health',
    env: { ROLES: 'api', LOG_LEVEL: 'warn', TRUST_PROXY: '1', NODE_ENV: 'production', ...options.env },
  });
}
