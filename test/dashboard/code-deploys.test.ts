// The fleet page's "Code deploys" section: what each start of changed code did to the code schedules
// (added, changed field by field, orphaned), read back from the audit trails.
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeDeploys } from '../../src/insight/index.js';
import { SchedulerManager } from '../../src/scheduler/index.js';
import { REDIS_URL } from '../redis-url.js';
import { startTestDashboard, type TestDashboard, TOKEN } from './harness.js';

describe('code deploys on the fleet page', () => {
  let t: TestDashboard;
  beforeAll(async () => {
    t = await startTestDashboard();
  });
  afterAll(async () => {
    await t.cleanup();
  });

  async function deploy(cron: string, withExtra: boolean, role: 'client' | 'scheduler' = 'client') {
    const m = new SchedulerManager({
      prefix: t.prefix,
      role,
      connection: REDIS_URL,
      logger: pino({ level: 'silent' }),
    });
    m.cron(cron, { id: 'report', queue: t.queue })(async function report() {});
    if (withExtra) m.every(3600, { id: 'extra', queue: t.queue })(async function extra() {});
    await m.start();
    await m.stop();
  }

  it('shows the adds of the first deploy and the changed cron and orphan of a later one', async () => {
    await deploy('0 9 * * *', true);
    const first = await codeDeploys(t.scheduler);
    expect(first).toHaveLength(1);
    expect(first[0]?.changes.map((c) => [c.scheduleId, c.op])).toEqual([
      ['extra', 'create'],
      ['report', 'create'],
    ]);
    // entries further apart than the gap are a deploy of their own (the next deploy comes 500 ms later,
    // twice the gap; one deploy's entries are written within a few ms of each other)
    await new Promise((r) => setTimeout(r, 500));
    await deploy('0 10 * * *', false, 'scheduler');
    const deploys = await codeDeploys(t.scheduler, { gapMs: 250 });
    expect(deploys).toHaveLength(2);
    const [latest] = deploys;
    expect(latest?.changes.map((c) => [c.scheduleId, c.op])).toContainEqual(['report', 'update']);
    expect(latest?.changes.map((c) => [c.scheduleId, c.op])).toContainEqual(['extra', 'orphan']);
    const update = latest?.changes.find((c) => c.op === 'update');
    expect(update?.changes).toEqual([
      {
        field: 'trigger',
        before: { type: 'cron', expression: '0 9 * * *' },
        after: { type: 'cron', expression: '0 10 * * *' },
      },
    ]);

    const page = await (
      await fetch(`${t.url}/fleet`, { headers: { authorization: `Bearer ${TOKEN}` } })
    ).text();
    expect(page).toContain('Code deploys');
    expect(page).toMatch(/data-schedule="report" data-op="update"/);
    expect(page).toContain('0 10 * * *');
    expect(page).toMatch(/data-schedule="extra" data-op="orphan"/);
  });
});
