import { afterEach, describe, expect, it } from 'vitest';
import { createWorker, type WorkerHandle } from '../../../src/queue/create-worker.js';
import { SIGNATURE_HEADER, signBody } from '../../../src/scheduler/alerts/index.js';
import { withManagerEnv } from '../../../src/scheduler/contract/manager-env.js';
import { AlertStore } from '../../../src/store/deployment/alert-store.js';
import { waitUntil } from '../../wait-until.js';
import { silent, testEnv } from '../helpers.js';
import { type Received, startReceiver } from './receiver.js';

describe('expectations: a late occurrence', () => {
  let env: ReturnType<typeof testEnv>;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let worker: WorkerHandle | undefined;
  afterEach(async () => {
    await worker?.close({ graceMs: 1000 });
    worker = undefined;
    await env.cleanup();
    await receiver.close();
  });

  it('opens one late incident, delivered once, signed, with the why; one resolved delivery after a run', async () => {
    env = testEnv('alerts-late');
    receiver = await startReceiver();
    const m = withManagerEnv(
      { ...process.env, BULLBEAT_NOTIFIERS: `ops=webhook:${receiver.url}/hook;secret=s3cret` },
      () => env.manager(),
    );
    m.every(1, { id: 'tick', expect: { startedWithin: '2s', notify: ['ops'] } })(async function tick() {});
    await m.start();
    const late = (r: Received) => r.json?.incident?.cause === 'late';
    await waitUntil(() => receiver.got.some((r) => late(r) && r.json.event === 'opened'), 15_000);
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
    await waitUntil(() => receiver.got.some((r) => late(r) && r.json.event === 'resolved'), 15_000);
    await new Promise((r) => setTimeout(r, 1500)); // a second check would have opened or resolved again
    const lateOnes = receiver.got.filter(late);
    expect(lateOnes.map((r) => r.json.event)).toEqual(['opened', 'resolved']);
    expect(new Set(lateOnes.map((r) => r.json.incident.id)).size).toBe(1);
    expect(lateOnes[1]!.json.incident.resolvedWhy).toMatch(/a run started/);
    const [delivered] = await alerts.deliveriesOf([(await alerts.incidents())[0]!]);
    expect(delivered).toMatchObject({ status: 'sent', attempts: 1, notifier: 'ops' });
    expect((await alerts.deliveryCounts()).ops?.sent).toBeGreaterThanOrEqual(2);
  }, 45_000);
});
