import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorker, type WorkerHandle } from '../../../src/queue/create-worker.js';
import { SIGNATURE_HEADER, signBody } from '../../../src/scheduler/alerts/index.js';
import { withManagerEnv } from '../../../src/scheduler/contract/manager-env.js';
import { AlertStore } from '../../../src/store/deployment/alert-store.js';
import { silent, testEnv } from '../helpers.js';
import { ManualTime } from '../manual-time.js';
import { type Received, startReceiver } from './receiver.js';

// On manual time (manual-time.ts): the fire loop, the expectations watch's checks and the outbox's
// sender run on the test's clock, and Redis's clock as the manager and its worker read it; the
// deliveries, BullMQ and the worker's runs are real, and waited for. commitAhead off: a job staged
// ahead waits in BullMQ's delayed set for BullMQ's own clock, which manual time runs ahead of.
describe('expectations: a late occurrence', () => {
  let env: ReturnType<typeof testEnv>;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let worker: WorkerHandle | undefined;
  let time: ManualTime | undefined;
  afterEach(async () => {
    await worker?.close({ graceMs: 1000 });
    worker = undefined;
    await time?.stopAll();
    time = undefined;
    await env.cleanup();
    await receiver.close();
  });

  it('opens one late incident, delivered once, signed, with the why; one resolved delivery after a run', async () => {
    env = testEnv('alerts-late');
    receiver = await startReceiver();
    const t = new ManualTime(env.redis, env.prefix);
    time = t;
    await t.start();
    // the watch's checks, counted from its debug line (one replica: it checks at every tick)
    let checks = 0;
    const logger = pino(
      { level: 'debug' },
      {
        write: (line: string) => {
          if (line.includes('expectations: checked')) checks++;
        },
      },
    );
    const m = withManagerEnv(
      { ...process.env, BULLBEAT_NOTIFIERS: `ops=webhook:${receiver.url}/hook;secret=s3cret` },
      () => env.manager({ logger, commitAhead: false }),
    );
    t.attach(m);
    m.every(1, { id: 'tick', expect: { startedWithin: '2s', notify: ['ops'] } })(async function tick() {});
    await m.start();
    const late = (r: Received) => r.json?.incident?.cause === 'late';
    await t.advanceUntil(() => receiver.got.some((r) => late(r) && r.json.event === 'opened'), 15_000, 50);
    const opened = receiver.got.find((r) => late(r) && r.json.event === 'opened')!;
    // the body: schedule, occurrence, cause and the why of the occurrence; signed with the operator's secret
    expect(opened.json.incident.scheduleId).toBe('tick');
    expect(opened.json.incident.occurrence).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(opened.json.incident.why).toMatch(
      /not started .* after its fire time .*startedWithin 2s.*waits in queue/,
    );
    expect(opened.headers[SIGNATURE_HEADER]).toBe(signBody('s3cret', opened.body));
    expect(opened.headers['x-bullbeat-delivery']).toBe(opened.json.deliveryId);
    // opened within startedWithin + 1 s of the first occurrence that went unstarted (Redis clock)
    const alerts = new AlertStore(env.redis, env.prefix);
    const [incident] = await alerts.incidents({ open: true });
    const firstFire = Math.min(...(await m.history.list('tick')).map((r) => r.fireAt));
    expect(incident!.openedAt - (firstFire + 2000)).toBeLessThanOrEqual(1000 + 500);

    worker = await createWorker(m, { concurrency: 5, logger: silent });
    await t.advanceUntil(() => receiver.got.some((r) => late(r) && r.json.event === 'resolved'), 15_000, 50);
    // two more checks, and the sender's polls after them: a check would have opened or resolved again
    const seen = checks;
    await t.advanceUntil(() => checks >= seen + 2, 10_000, 50);
    await t.advance(1000);
    const lateOnes = receiver.got.filter(late);
    expect(lateOnes.map((r) => r.json.event)).toEqual(['opened', 'resolved']);
    expect(new Set(lateOnes.map((r) => r.json.incident.id)).size).toBe(1);
    expect(lateOnes[1]!.json.incident.resolvedWhy).toMatch(/a run started/);
    const [delivered] = await alerts.deliveriesOf([(await alerts.incidents())[0]!]);
    expect(delivered).toMatchObject({ status: 'sent', attempts: 1, notifier: 'ops' });
    expect((await alerts.deliveryCounts()).ops?.sent).toBeGreaterThanOrEqual(2);
  }, 45_000);
});
