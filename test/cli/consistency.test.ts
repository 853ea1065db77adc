import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SchedulerManager } from '../../src/index.js';
import { internalsOf } from '../../src/scheduler/index.js';
import { RunHistory } from '../../src/store/reads/run-history.js';
import { REDIS_URL } from '../redis-url.js';
import { assertBuilt, runBullbeat } from './run-bullbeat.js';

const prefix = `cli-consistency-${randomUUID().slice(0, 8)}`;
const queue = `${prefix}-q`;
const env = { BULLBEAT_PREFIX: prefix, REDIS_URL };
let manager: SchedulerManager;

beforeAll(() => {
  assertBuilt();
  manager = new SchedulerManager({ prefix, role: 'client', logger: pino({ level: 'silent' }) });
});

afterAll(async () => {
  const keys = await internalsOf(manager).redis.keys(`{${prefix}}*`);
  if (keys.length) await internalsOf(manager).redis.del(...keys);
  await manager.close();
});

describe('the CLI, consistent', () => {
  it('durations: a unit, or a bare number read as seconds; anything else refused naming the flag', async () => {
    const add = await runBullbeat(
      ['schedule:add', '--name', 'tick', '--every', '5m', '--queue', queue, '--json'],
      {
        env,
      },
    );
    expect(add.code).toBe(0);
    expect(JSON.parse(add.stdout)).toMatchObject({ spec: { type: 'interval', seconds: 300 } });
    // no live worker handles it: said on stderr
    expect(add.stderr).toMatch(/jobs "tick" on queue ".*": no bullbeat worker is alive/);
    const bad = await runBullbeat(['schedule:add', '--name', 't2', '--every', '5 minutes'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      '--every: expected a number with a unit (500ms, 30s, 5m, 24h, 7d; a bare number is seconds)',
    );
    const agenda = await runBullbeat(['agenda', '--next', '2', '--json'], { env });
    expect(agenda.code).toBe(0);
    const a = JSON.parse(agenda.stdout) as { from: number; to: number };
    expect(a.to - a.from).toBe(2000);
  }, 60_000);

  it('re-adding blames --name when no --id was given', async () => {
    const again = await runBullbeat(['schedule:add', '--name', 'tick', '--every', '30'], { env });
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(
      /^bullbeat: --name: a schedule "tick" \(the id defaults to --name\) already exists/,
    );
    expect(again.stderr).toContain('or --id to add another');
    const withId = await runBullbeat(['schedule:add', '--name', 'x', '--id', 'tick', '--every', '30'], {
      env,
    });
    expect(withId.stderr).toMatch(/^bullbeat: --id: a schedule "tick" already exists/);
  }, 60_000);

  it('pause, trigger, resume and remove print JSON with --json', async () => {
    const pause = await runBullbeat(['schedule:pause', 'tick', '--note', 'deploy', '--json'], { env });
    expect(pause.code).toBe(0);
    expect(JSON.parse(pause.stdout)).toEqual({
      id: 'tick',
      action: 'pause',
      done: true,
      status: 'paused',
      note: 'deploy',
    });
    const twice = await runBullbeat(['schedule:pause', 'tick', '--json'], { env });
    expect(JSON.parse(twice.stdout)).toMatchObject({ action: 'pause', done: false, status: 'paused' });
    const trigger = await runBullbeat(['schedule:trigger', 'tick', '--json'], { env });
    expect(JSON.parse(trigger.stdout)).toMatchObject({
      action: 'trigger',
      done: true,
      jobId: expect.stringMatching(/^bb-tick-m\d+$/),
    });
    const resume = await runBullbeat(['schedule:resume', 'tick', '--json'], { env });
    expect(JSON.parse(resume.stdout)).toMatchObject({
      action: 'resume',
      done: true,
      status: 'active',
      caughtUp: 0,
    });
  }, 60_000);

  it('schedule:show counts failed runs apart from ok ones and shows the last error', async () => {
    const history = new RunHistory(internalsOf(manager).redis, internalsOf(manager).keys);
    for (const [i, err] of ['boom 1', 'boom 2', 'boom 3\n    at stack'].entries()) {
      await history.merge('tick', 1_000_000 + i, false, { outcome: 'failed', error: err }, [
        'runs',
        'errors',
      ]);
    }
    const show = await runBullbeat(['schedule:show', 'tick'], { env });
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/runs +3 finished \(0 ok, 3 failed\)/);
    expect(show.stdout).toMatch(/last error +boom 3 \(occurrence 1970-01-01 00:16:40Z, failed\)\n/);
    const json = JSON.parse((await runBullbeat(['schedule:show', 'tick', '--json'], { env })).stdout);
    expect(json.lastError).toEqual({ fireAt: 1_000_002, outcome: 'failed', error: 'boom 3\n    at stack' });
    const remove = await runBullbeat(['schedule:remove', 'tick', '--json'], { env });
    expect(JSON.parse(remove.stdout)).toEqual({ id: 'tick', action: 'remove', done: true });
  }, 60_000);
});
