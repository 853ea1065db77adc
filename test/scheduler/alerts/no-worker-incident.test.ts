import { afterEach, describe, expect, it } from 'vitest';
import { createWorker, type WorkerHandle } from '../../../src/queue/create-worker.js';
import { withManagerEnv } from '../../../src/scheduler/contract/manager-env.js';
import { AlertStore } from '../../../src/store/deployment/alert-store.js';
import { waitUntil } from '../../wait-until.js';
import { silent, testEnv } from '../helpers.js';
import { type Received, startReceiver } from './receiver.js';

describe('expectations: no worker consumes the queue', () => {
  let env: ReturnType<typeof testEnv>;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let worker: WorkerHandle | undefined;
  afterEach(async () => {
    await worker?.close({ graceMs: 1000 });
    worker = undefined;
    await env.cleanup();
    await receiver.close();
  });

  it('opens one no-worker incident while nothing consumes the queue, resolved once a worker does', async () => {
    env = testEnv('alerts-noworker');
    receiver = await startReceiver();
    const m = withManagerEnv({ ...process.env, BULLBEAT_NOTIFIERS: `ops=webhook:${receiver.url}/hook` }, () =>
      env.manager(),
    );
    // an expectation that the missing worker does not breach by itself: only no-worker can open
    m.every(1, { id: 'orphan', expect: { failuresInARow: 3, notify: ['ops'] } })(async function orphan() {});
    await m.start();
    const noWorker = (r: Received) => r.json?.incident?.cause === 'no-worker';
    await waitUntil(() => receiver.got.some((r) => noWorker(r) && r.json.event === 'opened'), 30_000, {
      stepMs: 100,
    });
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

    worker = await createWorker(m, { concurrency: 2, logger: silent });
    await waitUntil(() => receiver.got.some((r) => noWorker(r) && r.json.event === 'resolved'), 30_000, {
      stepMs: 100,
    });
    await new Promise((r) => setTimeout(r, 1500));
    const told = receiver.got.filter(noWorker);
    expect(told.map((r) => r.json.event)).toEqual(['opened', 'resolved']);
    expect(told[1]!.json.incident.resolvedWhy).toBe(`a worker consumes queue "${env.queue}" again`);
    expect(new Set(told.map((r) => r.json.incident.id)).size).toBe(1);
    expect(await alerts.incidents({ open: true })).toEqual([]);
  }, 90_000);
});
