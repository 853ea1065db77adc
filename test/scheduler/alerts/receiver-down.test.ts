import { afterEach, describe, expect, it } from 'vitest';
import { createWorker, type WorkerHandle } from '../../../src/queue/create-worker.js';
import { withManagerEnv } from '../../../src/scheduler/contract/manager-env.js';
import { AlertStore } from '../../../src/store/deployment/alert-store.js';
import { waitUntil } from '../../wait-until.js';
import { silent, testEnv } from '../helpers.js';
import { ManualTime } from '../manual-time.js';
import { type Received, startReceiver } from './receiver.js';

/** How long every receiver is down: 30 s, as the docs say (the bound on waiting is the retention). */
const OUTAGE_MS = 30_000;
/** Time moves in steps of this much, each once the sender has caught up. */
const STEP_MS = 1000;

describe('notifiers down: nothing lost', () => {
  let env: ReturnType<typeof testEnv>;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let worker: WorkerHandle | undefined;
  let time: ManualTime | undefined;
  afterEach(async () => {
    await worker?.close({ graceMs: 1000 });
    await time?.stopAll();
    time = undefined;
    await env.cleanup();
    await receiver.close();
  });

  it('retries with backoff and delivers every incident event once up, in order per incident, to each kind', async () => {
    env = testEnv('alerts-down');
    receiver = await startReceiver();
    await receiver.down();
    const m = withManagerEnv(
      {
        ...process.env,
        BULLBEAT_NOTIFIERS: [
          `hook=webhook:${receiver.url}/hook;secret=k`,
          `chat=slack:${receiver.url}/slack`,
          `pd=pagerduty:ROUTE;url=${receiver.url}/pd`,
        ].join('\n'),
      },
      () => env.manager({ commitAhead: false }),
    );
    // On manual time (manual-time.ts): the fire loop, the expectations watch, the outbox's sender (its
    // polls and its clock) and Redis's clock as the manager and its worker read it. The outage lasts
    // 30 s on it, with every retry of the backoff in between, in far less wall time; the runs, BullMQ
    // and the requests are real. commitAhead off: a job staged ahead would wait for BullMQ's own clock.
    const t = new ManualTime(env.redis, env.prefix);
    time = t;
    await t.start();
    t.attach(m);
    let failing = true;
    m.every(1, { id: 'flaky', expect: { failuresInARow: 1 } })(async function flaky() {
      if (failing) throw new Error('upstream said no');
    });
    const clock = () => t.now();
    await m.start();
    worker = await createWorker(m, { concurrency: 1, logger: silent });
    const alerts = new AlertStore(env.redis, env.prefix);
    /** Move time one step on, then on in small steps until the sender has taken all that is due. */
    const step = async () => {
      await t.advance(STEP_MS);
      await t.advanceUntil(
        async () => (await env.redis.zcount(alerts.keys.outbox, '-inf', clock())) === 0,
        2000,
        10,
      );
    };
    const downAt = clock();
    // three incidents open and close while every receiver is down
    for (let i = 0; i < 3; i++) {
      failing = true;
      await t.advanceUntil(async () => (await alerts.incidents({ open: true })).length === 1, 15_000, 50);
      failing = false;
      await t.advanceUntil(async () => (await alerts.incidents({ open: true })).length === 0, 15_000, 50);
    }
    failing = false;
    const incidents = (await alerts.incidents()).filter((i) => i.cause === 'failed');
    expect(incidents).toHaveLength(3);
    expect(receiver.got).toHaveLength(0);
    const retried = (await alerts.deliveriesOf(incidents)).filter((d) => d.status === 'retrying');
    expect(retried.length).toBeGreaterThan(0);
    expect(retried.every((d) => d.attempts >= 1 && d.lastError !== undefined)).toBe(true);
    while (clock() < downAt + OUTAGE_MS) await step();
    // retried with backoff (1, 2, 4, 8, 16 s) through the outage, not at every look at the outbox (120)
    const attempts = (await alerts.deliveriesOf(incidents)).map((d) => d.attempts);
    expect(Math.max(...attempts)).toBeGreaterThanOrEqual(4);
    expect(Math.max(...attempts)).toBeLessThanOrEqual(7);

    await receiver.up();
    // 3 incidents x 3 notifiers x (opened, resolved), each due within the longest backoff (60 s)
    const delivered = () => new Set(receiver.got.map(deliveryKey)).size === 18;
    while (!delivered() && clock() < downAt + OUTAGE_MS + 60_000) await step();
    await waitUntil(delivered, 10_000, { what: 'all 18 deliveries' });
    const byIncident = new Map<string, Received[]>();
    for (const r of receiver.got) {
      const key = `${incidentOf(r)} ${r.path}`;
      byIncident.set(key, [...(byIncident.get(key) ?? []), r]);
    }
    expect(byIncident.size).toBe(9);
    for (const got of byIncident.values()) {
      const events = got.map(eventOf);
      expect(events.indexOf('opened')).toBeLessThan(events.indexOf('resolved'));
    }
    const pd = receiver.got.filter((r) => r.path === '/pd');
    expect(pd.every((r) => r.json.routing_key === 'ROUTE' && r.json.dedup_key.startsWith('bullbeat:'))).toBe(
      true,
    );
    expect(new Set(pd.map((r) => r.json.dedup_key)).size).toBe(3);
    expect(
      receiver.got.filter((r) => r.path === '/slack').every((r) => typeof r.json.text === 'string'),
    ).toBe(true);
    // each is recorded sent once its receiver answered (just after the request)
    await t.advanceUntil(
      async () => (await alerts.deliveriesOf(incidents)).every((d) => d.status === 'sent'),
      10_000,
      50,
    );
    const all = await alerts.deliveriesOf(incidents);
    expect(all.some((d) => d.attempts > 1)).toBe(true);
  }, 150_000);
});

function eventOf(r: Received): string {
  if (r.path === '/pd') return r.json.event_action === 'trigger' ? 'opened' : 'resolved';
  return (r.headers['x-bullbeat-delivery'] as string).split('|')[2]!;
}
function incidentOf(r: Received): string {
  return (r.headers['x-bullbeat-delivery'] as string).split('|')[0]!;
}
function deliveryKey(r: Received): string {
  return r.headers['x-bullbeat-delivery'] as string;
}
