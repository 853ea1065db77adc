import { afterAll, describe, expect, it } from 'vitest';
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
  }, 120_000);
});
