import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorker, type WorkerHandle } from '../../../src/queue/create-worker.js';
import { withManagerEnv } from '../../../src/scheduler/contract/manager-env.js';
import { AlertStore } from '../../../src/store/deployment/alert-store.js';
import { testEnv } from '../helpers.js';
import { ManualTime } from '../manual-time.js';
import { type Received, startReceiver } from './receiver.js';

// On manual time (manual-time.ts): the fire loop, the expectations watch's checks (every 1 s, queues'
// consumers read again every 5 s) and the outbox's sender run on the test's clock and Redis's clock as
// the manager reads it; the deliveries, BullMQ and the worker are real, and waited for.
describe('expectations: no worker consumes the queue', () => {
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

  it('opens one no-worker incident while nothing consumes the queue, resolved once a worker does', async () => {
    env = testEnv('alerts-noworker');
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
    const m = withManagerEnv({ ...process.env, BULLBEAT_NOTIFIERS: `ops=webhook:${receiver.url}/hook` }, () =>
      env.manager({ logger }),
    );
    t.attach(m);
    // an expectation that the missing worker does not breach by itself: only no-worker can open
    m.every(1, { id: 'orphan', expect: { failuresInARow: 3, notify: ['ops'] } })(async function orphan() {});
    await m.start();
    const noWorker = (r: Received) => r.json?.incident?.cause === 'no-worker';
    await t.advanceUntil(
      () => receiver.got.some((r) => noWorker(r) && r.json.event === 'opened'),
      30_000,
      50,
    );
    const alerts = new AlertStore(env.redis, env.prefix);
    const [open] = await alerts.incidents({ open: true });
    expect(open).toMatchObject({
      cause: 'no-worker',
      scheduleId: 'orphan',
      queue: env.queue,
      status: 'open',
    });
    expect(open!.why).toBe(
      `no worker consumes queue "${env.queue}": no process holds a BullMQ worker connection on it, so its occurrences wait there`,
    );

    worker = await createWorker(m, { concurrency: 2, logger: pino({ level: 'silent' }) });
    await t.advanceUntil(
      () => receiver.got.some((r) => noWorker(r) && r.json.event === 'resolved'),
      30_000,
      50,
    );
    // two more checks, and the sender's polls after them: a check would have opened or resolved again
    const seen = checks;
    await t.advanceUntil(() => checks >= seen + 2, 10_000, 50);
    await t.advance(1000);
    const told = receiver.got.filter(noWorker);
    expect(told.map((r) => r.json.event)).toEqual(['opened', 'resolved']);
    expect(told[1]!.json.incident.resolvedWhy).toBe(`a worker consumes queue "${env.queue}" again`);
    expect(new Set(told.map((r) => r.json.incident.id)).size).toBe(1);
    expect(await alerts.incidents({ open: true })).toEqual([]);
    expect((await alerts.incidents()).filter((i) => i.cause === 'no-worker')).toHaveLength(1);
  }, 90_000);
});
