#!/usr/bin/env node
// `npm start`: the product on a fresh machine. `prestart` (scripts/prepare.mjs --build) has installed
// and built; this runs `bullbeat dev` on the built example jobs module with the dashboard open on
// 127.0.0.1, plus the example's plain BullMQ consumer (the interop demo), and stops all of it on
// Ctrl-C or SIGTERM.
//
// Redis: REDIS_URL when set (it must answer); else the one at BULLBEAT_LOCAL_REDIS (default
// redis://127.0.0.1:6379); else, when `redis-server` is on PATH, a private one on a free port in a
// temporary directory with no persistence, for as long as this runs; else it says how to get one.
//
// Plain Node with no dependencies. Exit codes: those of `bullbeat dev` (0 after a clean stop),
// 2 when the port is taken, 3 when no Redis can be found.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const cli = join(root, 'dist/src/cli/main.js');
const jobs = join(root, 'dist/examples/jobs.js');
const consumer = join(root, 'dist/examples/email-service.js');
const port = process.env.PORT ?? '3000';
const say = (line) => process.stderr.write(`npm start: ${line}\n`);

/** PING over a raw socket; resolves 'ok', 'auth' (answers but wants a password) or 'down'. */
function ping(url, timeoutMs = 1500) {
  return new Promise((resolve) => {
    let u;
    try {
      u = new URL(url);
    } catch {
      resolve('down');
      return;
    }
    const socket = createConnection({ host: u.hostname || '127.0.0.1', port: Number(u.port || 6379) });
    const done = (result) => {
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(timeoutMs, () => done('down'));
    socket.on('error', () => done('down'));
    socket.on('connect', () => socket.write('*1\r\n$4\r\nPING\r\n'));
    socket.on('data', (data) => {
      const line = data.toString();
      done(line.startsWith('+PONG') ? 'ok' : /NOAUTH|WRONGPASS|auth/i.test(line) ? 'auth' : 'down');
    });
  });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port: p } = server.address();
      server.close(() => resolve(p));
    });
  });
}

function portFree(p) {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(p, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

function onPath(command) {
  return (process.env.PATH ?? '')
    .split(delimiter)
    .some((dir) => dir !== '' && existsSync(join(dir, command)));
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts a private redis-server; resolves { url, stop } once it answers. */
async function privateRedis() {
  const dir = mkdtempSync(join(tmpdir(), 'bullbeat-redis-'));
  const redisPort = await freePort();
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(redisPort),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--save',
      '',
      '--appendonly',
      'no',
      '--maxmemory-policy',
      'noeviction',
      '--loglevel',
      'warning',
    ],
    // Its own process group: Ctrl-C reaches this script, which stops Redis last, after the app.
    { stdio: ['ignore', 'ignore', 'inherit'], detached: true },
  );
  let exited = false;
  const gone = new Promise((resolve) => child.on('exit', () => resolve((exited = true))));
  const url = `redis://127.0.0.1:${redisPort}`;
  for (let i = 0; i < 100 && !exited; i++) {
    if ((await ping(url, 500)) === 'ok') break;
    await sleep(50);
  }
  const stop = async () => {
    if (!exited) child.kill('SIGTERM');
    await Promise.race([gone, sleep(5000)]);
    if (!exited) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  if (exited || (await ping(url, 500)) !== 'ok') {
    await stop();
    return undefined;
  }
  return { url, stop };
}

function howToGetRedis(where) {
  say(`no Redis answers at ${where}, and redis-server is not installed.`);
  say('start one, then run npm start again:');
  say("  docker compose up -d redis            # this repository's compose file: Redis on 127.0.0.1:6379");
  say('  sudo apt-get install redis-server     # Debian/Ubuntu: a Redis on 127.0.0.1:6379');
  say('  brew install redis && brew services start redis   # macOS');
  say('or point REDIS_URL at one: REDIS_URL=redis://host:6379 npm start');
}

async function findRedis() {
  if (process.env.REDIS_URL) {
    return { url: process.env.REDIS_URL, stop: async () => {} };
  }
  const local = process.env.BULLBEAT_LOCAL_REDIS || 'redis://127.0.0.1:6379';
  const state = await ping(local);
  if (state === 'ok') {
    say(`using the Redis at ${local}`);
    return { url: local, stop: async () => {} };
  }
  if (state === 'auth') {
    say(`the Redis at ${local} wants a password: set REDIS_URL=redis://:password@host:port and run again`);
    return undefined;
  }
  if (onPath('redis-server')) {
    const mine = await privateRedis();
    if (mine) {
      say(`no Redis at ${local}: started a private redis-server at ${mine.url}`);
      say('  (temporary directory, no persistence; it stops when npm start stops)');
      return mine;
    }
    say('redis-server is installed but did not start');
    return undefined;
  }
  howToGetRedis(local);
  return undefined;
}

async function waitForDashboard(url, child) {
  for (let i = 0; i < 600 && child.exitCode === null && child.signalCode === null; i++) {
    try {
      const res = await fetch(`${url}/healthz`);
      if (res.ok) return true;
    } catch {}
    await sleep(100);
  }
  return false;
}

if (!existsSync(cli) || !existsSync(jobs)) {
  say('the build is missing (dist/src/cli/main.js, dist/examples/jobs.js): run npm run build');
  process.exit(1);
}

if (!(await portFree(Number(port)))) {
  say(`port ${port} is in use on 127.0.0.1: run PORT=<another port> npm start`);
  process.exit(2);
}

const redis = await findRedis();
if (!redis) process.exit(3);

const env = {
  ...process.env,
  REDIS_URL: redis.url,
  PORT: port,
  BULLBEAT_DASHBOARD_OPEN: '1',
  // Readable logs even when the output is piped (npm start is for people).
  LOG_FORMAT: process.env.LOG_FORMAT ?? 'pretty',
};
const children = [];
const launch = (args) => {
  const child = spawn(process.execPath, args, { cwd: root, env, stdio: 'inherit', detached: true });
  children.push(child);
  return child;
};

const app = launch([cli, 'dev', jobs, '--open', '--host', '127.0.0.1', '--port', port]);

let stopping;
const stopAll = (signal) => {
  stopping ??= (async () => {
    if (signal) say(`${signal}: stopping (bullbeat finishes running jobs first)`);
    for (const child of children) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    }
    const exits = children.map((child) =>
      child.exitCode !== null || child.signalCode !== null
        ? Promise.resolve()
        : new Promise((resolve) => child.on('exit', resolve)),
    );
    const overdue = sleep(60_000).then(() => 'overdue');
    if ((await Promise.race([Promise.all(exits), overdue])) === 'overdue') {
      for (const child of children) child.kill('SIGKILL');
    }
    await redis.stop();
  })();
  return stopping;
};

// npm and the terminal may both deliver Ctrl-C: the first signal stops everything, later ones wait.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    stopAll(signal).then(() => {
      say(`stopped (bullbeat dev exit code ${app.exitCode ?? 'none'})`);
      process.exit(app.exitCode ?? 0);
    });
  });
}

app.on('exit', (code, signal) => {
  if (stopping) return;
  say(`bullbeat dev exited (${signal ?? `code ${code}`})`);
  stopAll().then(() => process.exit(code ?? 1));
});

const local = `http://localhost:${port}`;
if (await waitForDashboard(`http://127.0.0.1:${port}`, app)) {
  // The plain BullMQ consumer of the interop example, once bullbeat is up.
  if (existsSync(consumer) && !stopping) launch([consumer]);
  const lines = [
    '',
    `  bullbeat is running the example jobs (examples/jobs.ts) against ${redis.url}`,
    `  schedules   ${local}/`,
    `  Bull Board  ${local}/admin/queues`,
    `  API         ${local}/api/schedules     metrics ${local}/metrics`,
    '  The dashboard runs OPEN (no credentials) and listens on 127.0.0.1 only.',
    `  CLI: REDIS_URL=${redis.url} node dist/src/cli/main.js schedule:list`,
    '  Ctrl-C stops everything.',
    '',
  ];
  process.stderr.write(`${lines.join('\n')}\n`);
}
