import { afterAll, describe, expect, it } from 'vitest';
import { SchedulerManager } from '../../src/scheduler/index.js';
import { AlertStore } from '../../src/store/deployment/alert-store.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { REDIS_URL } from '../redis-url.js';
import { startReceiver } from '../scheduler/alerts/receiver.js';
import { cliTestBed } from './cli-test-bed.js';
import { runBullbeat } from './run-bullbeat.js';
import { spawnBullbeat } from './spawn-bullbeat.js';

const bed = cliTestBed('alerts');
const fixture = 'test/cli/fixtures/jobs-expect.mjs';
const env = { ...bed.env, TEST_QUEUE: bed.queue };

describe('bullbeat alerts', () => {
  const receivers: Awaited<ReturnType<typeof startReceiver>>[] = [];
  afterAll(() => Promise.all(receivers.map((r) => r.close())));

  it('a scheduler given --notifier delivers the late incident; alerts and schedule:show show it', async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    const scheduler = spawnBullbeat(
      ['scheduler', fixture, '--notifier', `ops=webhook:${receiver.url}/hook`],
      {
        env,
      },
    );
    try {
      await scheduler.waitFor(/scheduler replica running/, 60_000);
      const deadline = Date.now() + 30_000;
      while (!receiver.got.some((r) => r.json?.incident?.cause === 'late') && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(receiver.got.find((r) => r.json?.incident?.cause === 'late')?.json.incident.scheduleId).toBe(
        'watched',
      );

      const json = await runBullbeat(['alerts', '--json'], { env });
      expect(json.code).toBe(0);
      const report = JSON.parse(json.stdout);
      const late = report.incidents.find((i: { cause: string }) => i.cause === 'late');
      expect(late).toMatchObject({ scheduleId: 'watched', status: 'open', notify: ['ops'] });
      expect(late.deliveries[0]).toMatchObject({ notifier: 'ops', event: 'opened', status: 'sent' });
      expect(report.notifiers).toEqual({ ops: 'webhook' });

      const open = await runBullbeat(['alerts', '--open'], { env });
      expect(open.stdout).toMatch(/inc-\d+\s+open\s+late\s+watched/);
      expect(open.stdout).toMatch(/why: not started/);

      const show = await runBullbeat(['schedule:show', 'watched'], { env });
      expect(show.stdout).toMatch(/expects\s+started within 1s; notify ops/);
    } finally {
      scheduler.kill();
      await scheduler.exited;
    }
  }, 120_000);

  it('refuses a notifier URL that is not http(s), and a heartbeat period without unit, naming the flag', async () => {
    const bad = await runBullbeat(['scheduler', fixture, '--notifier', 'ops=webhook:ftp://h.example/x'], {
      env,
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--notifier: notifier "ops": the webhook URL: must be an http\(s\) URL/);
    const beat = await runBullbeat(
      ['scheduler', fixture, '--heartbeat-url', 'https://hc.example/p', '--heartbeat-every', '30'],
      { env },
    );
    expect(beat.code).toBe(2);
    expect(beat.stderr).toMatch(/--heartbeat-every: must be a duration with a unit/);
    const envBad = await runBullbeat(['scheduler', fixture], {
      env: { ...env, BULLBEAT_NOTIFIERS: 'ops=carrier-pigeon:x' },
    });
    expect(envBad.code).toBe(2);
    expect(envBad.stderr).toMatch(/BULLBEAT_NOTIFIERS: notifier "ops": kind must be one of/);
    // the dashboard takes notifiers as the scheduler does, checked before it starts (--check included)
    const dash = await runBullbeat(
      ['dashboard', '--open', '--check', '--notifier', 'ops=webhook:ftp://h.example/x'],
      { env, spawn: false },
    );
    expect(dash.code).toBe(2);
    expect(dash.stderr).toMatch(/--notifier: notifier "ops": the webhook URL: must be an http\(s\) URL/);
  }, 120_000);

  it('schedule:add --expect stores the expectations; bad ones are refused naming --expect and the field', async () => {
    await new AlertStore(bed.redis, bed.prefix).announceNotifiers([{ name: 'ops', kind: 'webhook' }]);
    const add = await runBullbeat(
      [
        'schedule:add',
        '--name',
        'expecting',
        '--every',
        '1m',
        '--queue',
        bed.queue,
        '--expect',
        'startedWithin=2m,succeededBy=09:30,failuresInARow=3',
        '--expect',
        'notify=ops',
        '--json',
      ],
      { env },
    );
    expect(add.code).toBe(0);
    const shown = await runBullbeat(['schedule:show', 'expecting', '--json'], { env });
    expect(JSON.parse(shown.stdout).definition.expect).toEqual({
      startedWithinMs: 120_000,
      succeededBy: { at: '09:30' },
      failuresInARow: 3,
      notify: ['ops'],
    });
    const show = await runBullbeat(['schedule:show', 'expecting'], { env });
    expect(show.stdout).toMatch(/expects\s+started within 2m/);

    const refused = async (expectFlag: string, pattern: RegExp) => {
      const r = await runBullbeat(
        ['schedule:add', '--name', 'nope', '--every', '1m', '--expect', expectFlag],
        { env },
      );
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(pattern);
    };
    await refused('startedWithin=120', /--expect startedWithin: must be a duration with a unit/);
    await refused('succeededBy=25:00', /--expect succeededBy: /);
    await refused('failuresInARow=0', /--expect failuresInARow: cannot be met/);
    await refused('startedWithn=2m', /--expect: unknown expectation "startedWithn"/);
    await refused('startedWithin', /--expect startedWithin: needs a value/);
    await refused('notify=pager', /expect\.notify\[0\]: no notifier named "pager" is configured/);
    expect(await runBullbeat(['schedule:show', 'nope'], { env }).then((r) => r.code)).not.toBe(0);
  }, 60_000);

  it('alerts --selector lists the incidents of the schedules whose labels match', async () => {
    const m = new SchedulerManager({ role: 'client', prefix: bed.prefix, connection: REDIS_URL });
    try {
      for (const [id, tenant] of [
        ['acme-report', 'acme'],
        ['globex-report', 'globex'],
      ] as const) {
        await m.schedule({ name: id, queue: bed.queue }, new IntervalTrigger(3600), {
          id,
          labels: { tenant },
        }).saved;
      }
      const alerts = new AlertStore(bed.redis, bed.prefix);
      for (const id of ['acme-report', 'globex-report']) {
        await alerts.open(
          { scheduleId: id, cause: 'failed', occurrence: Date.now(), why: `${id} failed` },
          [],
        );
      }
      const acme = await runBullbeat(['alerts', '--selector', 'tenant=acme', '--json'], { env });
      expect(acme.code).toBe(0);
      expect(JSON.parse(acme.stdout).incidents.map((i: { scheduleId: string }) => i.scheduleId)).toEqual([
        'acme-report',
      ]);
      const text = await runBullbeat(['alerts', '--open', '--selector', 'tenant!=acme'], { env });
      expect(text.stdout).toMatch(/globex-report/);
      expect(text.stdout).not.toMatch(/acme-report/);
      const bad = await runBullbeat(['alerts', '--selector', 'tenant in (acme'], { env });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/--selector/);
    } finally {
      await m.close();
    }
  }, 60_000);
});
