import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, closedPort, linkNodeModules, root } from './run-bullbeat.js';
import { spawnBullbeat } from './spawn-bullbeat.js';

const privateRedisDirs = () => readdirSync(tmpdir()).filter((d) => d.startsWith('bullbeat-redis-'));

describe('npm start', () => {
  let clone: string;

  beforeAll(() => {
    assertBuilt();
    clone = mkdtempSync(join(tmpdir(), 'bullbeat-clone-'));
    const git = spawnSync('git', ['clone', '--quiet', root, clone], { encoding: 'utf8' });
    if (git.status !== 0) throw new Error(`git clone failed: ${git.stderr}`);
    // The installed dependencies (linked, their record of the install newer than the lock file), so
    // that prepare.mjs does not reinstall from the network; it still builds from scratch.
    linkNodeModules(clone);
  });

  afterAll(() => {
    rmSync(clone, { recursive: true, force: true });
  });

  it('from a clean clone: builds, starts a private Redis, serves the dashboard, and Ctrl-C stops it all', async () => {
    expect(existsSync(join(clone, 'dist'))).toBe(false);
    const port = await closedPort();
    const before = new Set(privateRedisDirs());
    // Its own process group, so that "Ctrl-C" can go to the whole group as a terminal sends it.
    const npm = spawn('npm', ['start'], {
      cwd: clone,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...Object.fromEntries(
          Object.entries(process.env).filter(([k]) => !/^(REDIS_URL|BULLBEAT_|PORT$|LOG_)/.test(k)),
        ),
        PORT: String(port),
        // Nothing answers here, and redis-server is installed: npm start must start its own.
        BULLBEAT_LOCAL_REDIS: `redis://127.0.0.1:${await closedPort()}`,
      },
    });
    let out = '';
    npm.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    npm.stderr.on('data', (d: Buffer) => {
      out += d.toString();
    });
    const exited = new Promise<number | null>((resolve) => npm.on('close', (code) => resolve(code)));
    try {
      const deadline = Date.now() + 150_000;
      while (!out.includes('Ctrl-C stops everything') && Date.now() < deadline && npm.exitCode === null) {
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(out).toContain('bullbeat: building (npm run build)');
      expect(out).toMatch(/started a private redis-server at redis:\/\/127\.0\.0\.1:\d+/);
      expect(out).toContain(`schedules   http://localhost:${port}/`);
      expect(out).toContain('runs OPEN (no credentials) and listens on 127.0.0.1 only');
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      const api = (await (await fetch(`http://127.0.0.1:${port}/api/schedules?limit=100`)).json()) as {
        items: { id: string }[];
      };
      expect(api.items.map((i) => i.id)).toEqual(
        expect.arrayContaining([
          'weekdayReport',
          'refresh-cache',
          'audit-sweep',
          'email-digest',
          'vacuum-db',
        ]),
      );
      const redisUrl = /private redis-server at (redis:\/\/\S+)/.exec(out)?.[1] as string;
      process.kill(-(npm.pid as number), 'SIGINT');
      // npm itself re-raises the SIGINT once its script has exited; the script reports its own end.
      await exited;
      expect(out).toContain('stopped cleanly');
      expect(out).toContain('npm start: stopped (bullbeat dev exit code 0)');
      // The private Redis is gone with its temporary directory.
      const probe = spawnSync('redis-cli', ['-u', redisUrl, 'ping'], { encoding: 'utf8' });
      expect(probe.stdout.trim()).not.toBe('PONG');
      expect(privateRedisDirs().filter((d) => !before.has(d))).toEqual([]);
    } finally {
      try {
        process.kill(-(npm.pid as number), 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }, 180_000);

  it('no Redis and no redis-server: says exactly how to get one, exit 3', async () => {
    // An empty PATH directory: no redis-server to be found (start.mjs runs node as process.execPath).
    const emptyBin = mkdtempSync(join(tmpdir(), 'bullbeat-empty-bin-'));
    const proc = spawnBullbeat([], {
      command: [join(root, 'scripts/start.mjs')],
      env: {
        REDIS_URL: undefined,
        PATH: emptyBin,
        PORT: String(await closedPort()),
        BULLBEAT_LOCAL_REDIS: `redis://127.0.0.1:${await closedPort()}`,
      },
    });
    const { code } = await proc.exited;
    rmSync(emptyBin, { recursive: true, force: true });
    expect(code).toBe(3);
    expect(proc.output()).toContain('no Redis answers at redis://127.0.0.1:');
    expect(proc.output()).toContain('docker compose up -d redis');
    expect(proc.output()).toContain('sudo apt-get install redis-server');
  });

  it('the dashboard port taken: says which and how to pick another, exit 2', async () => {
    const { createServer } = await import('node:net');
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const address = blocker.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    try {
      const proc = spawnBullbeat([], {
        command: [join(root, 'scripts/start.mjs')],
        env: { PORT: String(port) },
      });
      expect((await proc.exited).code).toBe(2);
      expect(proc.output()).toContain(
        `port ${port} is in use on 127.0.0.1: run PORT=<another port> npm start`,
      );
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  });

  it('REDIS_URL set but unreachable: the command says so, exit 3', async () => {
    const port = await closedPort();
    const proc = spawnBullbeat([], {
      command: [join(root, 'scripts/start.mjs')],
      env: { REDIS_URL: `redis://127.0.0.1:${port}`, PORT: String(await closedPort()) },
    });
    const { code } = await proc.exited;
    expect(code).toBe(3);
    expect(proc.output()).toContain(
      `bullbeat: Redis is unreachable at redis://127.0.0.1:${port}: connection refused`,
    );
  });
});
