import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startRedisServer } from '../setup/redis-server.js';
import { assertBuilt, runBullbeat } from './run-bullbeat.js';
import { type RunningBullbeat, spawnBullbeat } from './spawn-bullbeat.js';

// A user's own project, as the README sets it up: a jobs module with `prefix: 'app'`, and the CLI
// run with no --prefix, no BULLBEAT_PREFIX and no dashboard credentials. Each test has a private
// redis-server, so that "the deployments in this Redis" are the test's alone.
const APP_JOBS = 'test/cli/fixtures/jobs-app.mjs';
const running: RunningBullbeat[] = [];
const servers: { url: string; stop(): Promise<void> }[] = [];

async function privateRedis(): Promise<string> {
  const server = await startRedisServer();
  servers.push(server);
  return server.url;
}

function dashboardUrl(proc: RunningBullbeat): string {
  const m = /"url":"(http:\/\/[^"]+)"/.exec(proc.output());
  if (!m?.[1]) throw new Error(`no dashboard url in:\n${proc.output()}`);
  return m[1];
}

function start(args: string[], env: Record<string, string>): RunningBullbeat {
  const proc = spawnBullbeat(args, { env });
  running.push(proc);
  return proc;
}

beforeAll(() => assertBuilt());
afterEach(async () => {
  for (const proc of running.splice(0)) {
    proc.kill();
    await proc.exited;
  }
});
afterAll(async () => {
  for (const server of servers.splice(0)) await server.stop();
});

describe('your own project, as the README writes it', () => {
  it('bullbeat dev on loopback without credentials runs the dashboard open and says so in its banner', async () => {
    const REDIS_URL = await privateRedis();
    const dev = start(['dev', APP_JOBS, '--port', '0'], { REDIS_URL });
    await dev.waitFor(/bullbeat dev: running/);
    expect(dev.output()).toContain('dashboard open: no credentials, on 127.0.0.1 only');
    const url = dashboardUrl(dev);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const api = (await (await fetch(`${url}/api/schedules`)).json()) as { items: { id: string }[] };
    expect(api.items.map((i) => i.id)).toEqual(['dailyReport']);
    dev.child.kill('SIGINT');
    expect((await dev.exited).code).toBe(0);
  });

  it('bullbeat dev on another interface without credentials still refuses (exit 2)', async () => {
    // a refusal ends the command before it owns the process: run in this process
    const run = await runBullbeat(['dev', APP_JOBS, '--host', '0.0.0.0'], {
      env: { REDIS_URL: 'redis://127.0.0.1:1' },
      spawn: false,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^bullbeat: BULLBEAT_DASHBOARD_TOKEN: the dashboard has no credentials/);
  });

  it("schedule:list and the dashboard find the module's prefix when it is the only one in Redis", async () => {
    const REDIS_URL = await privateRedis();
    const scheduler = start(['scheduler', APP_JOBS], { REDIS_URL });
    await scheduler.waitFor(/scheduler replica running/);
    const list = await runBullbeat(['schedule:list'], { env: { REDIS_URL } });
    expect(list.stderr).toBe(
      'bullbeat: using prefix "app", the only bullbeat deployment in this Redis (set BULLBEAT_PREFIX or --prefix to choose)\n',
    );
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('dailyReport');
    expect(list.stdout).toContain('1 schedule under prefix "app"');
    const dash = start(['dashboard', '--open', '--port', '0'], { REDIS_URL });
    await dash.waitFor(/bullbeat dashboard: listening/);
    const api = (await (await fetch(`${dashboardUrl(dash)}/api/schedules`)).json()) as {
      items: { id: string }[];
    };
    expect(api.items.map((i) => i.id)).toEqual(['dailyReport']);
  });

  it('several deployments and no prefix given: exit 2 naming them; --prefix picks one', async () => {
    const REDIS_URL = await privateRedis();
    const redis = new Redis(REDIS_URL);
    await redis.hset('{app}:bb:schedules', 'x', '{}');
    await redis.hset('{billing}:bb:schedules', 'y', '{}');
    const run = await runBullbeat(['schedule:list'], { env: { REDIS_URL } });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'bullbeat: --prefix: not given, and this Redis holds several bullbeat deployments ' +
        '(app, billing): name one with --prefix or BULLBEAT_PREFIX\n',
    );
    // the demo's default deployment beside the user's is no exception: every command refuses alike
    await redis.hset('{bullbeat}:bb:schedules', 'demo', '{}');
    await redis.quit();
    for (const args of [['schedule:trigger', 'x'], ['status'], ['schedule:show', 'x'], ['agenda']]) {
      const r = await runBullbeat(args, { env: { REDIS_URL } });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain('several bullbeat deployments (app, billing, bullbeat)');
    }
    const dash = await runBullbeat(['dashboard', '--open', '--port', '0'], {
      env: { REDIS_URL },
      spawn: false,
    });
    expect(dash.code).toBe(2);
    expect(dash.stderr).toContain('several bullbeat deployments (app, billing, bullbeat)');
    const named = await runBullbeat(['schedule:list', '--json'], {
      env: { REDIS_URL, BULLBEAT_PREFIX: 'billing' },
    });
    expect(named.code).toBe(0);
    // a --prefix this Redis holds nothing under is a typo: the deployments it does hold are named
    const typo = await runBullbeat(['schedule:list', '--prefix', 'biling'], { env: { REDIS_URL } });
    expect(typo).toMatchObject({ code: 2, stdout: '' });
    expect(typo.stderr).toBe(
      'bullbeat: --prefix: no bullbeat deployment "biling" in this Redis, which holds: app, billing, bullbeat (name one of them)\n',
    );
    const remove = await runBullbeat(['schedule:remove', 'y', '--prefix', 'biling', '--json'], {
      env: { REDIS_URL },
    });
    expect(remove.code).toBe(2);
    // BULLBEAT_PREFIX is a deployment's own setting: one with nothing stored yet lists nothing
    const empty = await runBullbeat(['schedule:list'], {
      env: { REDIS_URL, BULLBEAT_PREFIX: 'nothing-here' },
    });
    expect(empty.code).toBe(0);
    expect(empty.stdout).toBe('no schedules under prefix "nothing-here"\n');
  }, 180_000);
});
