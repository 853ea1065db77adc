// vitest globalSetup: the one place that decides which Redis the tests use.
// REDIS_URL when set (it must answer); else the Redis on 127.0.0.1:6379 (BULLBEAT_LOCAL_REDIS) when it answers; else, when
// `redis-server` is on PATH, a private one on a free port with no persistence, stopped at the end;
// else one line saying how to get one. Tests read the URL through test/redis-url.ts.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
  }
}

/** PING over a raw socket: 'ok', 'auth' (answers, wants a password) or 'down'. */
export function ping(url: string, timeoutMs = 1500): Promise<'ok' | 'auth' | 'down'> {
  return new Promise((resolve) => {
    const u = new URL(url);
    const socket = createConnection({ host: u.hostname || '127.0.0.1', port: Number(u.port || 6379) });
    const done = (result: 'ok' | 'auth' | 'down') => {
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(timeoutMs, () => done('down'));
    socket.on('error', () => done('down'));
    socket.on('connect', () => {
      const auth = u.password ? ['AUTH', ...(u.username ? [u.username] : []), u.password] : [];
      const cmds = [...(auth.length ? [auth] : []), ['PING']];
      socket.write(
        cmds.map((c) => `*${c.length}\r\n${c.map((a) => `$${a.length}\r\n${a}\r\n`).join('')}`).join(''),
      );
    });
    let seen = '';
    socket.on('data', (data) => {
      seen += data.toString();
      if (seen.includes('+PONG')) done('ok');
      else if (/NOAUTH|WRONGPASS|invalid password/i.test(seen)) done('auth');
      else if (seen.startsWith('-')) done('down');
    });
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

const onPath = (command: string) =>
  (process.env.PATH ?? '').split(delimiter).some((d) => d !== '' && existsSync(join(d, command)));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A private redis-server on a free port (no persistence) in a temporary directory, and how to stop it. */
export async function startRedisServer(): Promise<{ url: string; stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'bullbeat-test-redis-'));
  const port = await freePort();
  // `--save ''` and no AOF: nothing is written to disk.
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(5000)]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const url = `redis://127.0.0.1:${port}`;
  for (let i = 0; i < 100 && child.exitCode === null; i++) {
    if ((await ping(url, 500)) === 'ok') return { url, stop };
    await sleep(50);
  }
  await stop();
  throw new Error(`npm test: redis-server was started on port ${port} but did not answer`);
}

export default async function setup(project: Pick<TestProject, 'provide'>): Promise<() => Promise<void>> {
  // The Redis tried before starting a private one (`BULLBEAT_LOCAL_REDIS`, as for `npm start`).
  const LOCAL = process.env.BULLBEAT_LOCAL_REDIS || 'redis://127.0.0.1:6379';
  let url: string;
  let stopPrivate: (() => Promise<void>) | undefined;
  const wanted = process.env.REDIS_URL;
  if (wanted) {
    if ((await ping(wanted)) !== 'ok') throw new Error(`npm test: REDIS_URL=${wanted} does not answer PING`);
    url = wanted;
  } else if ((await ping(LOCAL)) === 'ok') {
    url = LOCAL;
  } else if (onPath('redis-server')) {
    const started = await startRedisServer();
    stopPrivate = started.stop;
    url = started.url;
    process.stderr.write(`npm test: no Redis at ${LOCAL}; started a private redis-server at ${url}\n`);
  } else {
    throw new Error(
      `npm test: no Redis at ${LOCAL} and redis-server is not installed: ` +
        'install it (sudo apt-get install redis-server), or set REDIS_URL=redis://host:port',
    );
  }
  project.provide('redisUrl', url);
  // Also for anything read in this process (the config, other global setups).
  process.env.REDIS_URL = url;
  return async () => {
    await stopPrivate?.();
  };
}
