import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScheduleOptionsError } from '../../src/errors/index.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { assertBuilt, runBullbeat } from '../cli/run-bullbeat.js';
import { startTestDashboard, type TestDashboard } from '../dashboard/harness.js';

// One bad value, three doors: the library (schedule()), the JSON API (POST /api/schedules) and the
// CLI (schedule:add). The same rule refuses it at each, and each names the field the user gave with
// the same reason.
const cases = [
  { field: 'maxInstances', flag: '--max-instances', value: -1, reason: 'must be an integer >= 0, got -1' },
  { field: 'attempts', flag: '--attempts', value: 0, reason: 'must be an integer >= 1, got 0' },
  { field: 'timeoutMs', flag: '--timeout-ms', value: 1.5, reason: 'must be an integer >= 1, got 1.5' },
  {
    field: 'misfire',
    flag: '--misfire',
    value: 'later',
    reason: 'must be one of "once", "all", "skip", got "later"',
  },
] as const;

let t: TestDashboard;
beforeAll(async () => {
  assertBuilt();
  t = await startTestDashboard();
});
afterAll(async () => {
  await t.cleanup();
});

describe('one rule, written once, refuses the same bad value everywhere', () => {
  it.each(cases)('$field = $value', async ({ field, flag, value, reason }) => {
    let caught: unknown;
    try {
      t.scheduler.schedule({ name: 'bad', queue: t.queue }, new IntervalTrigger(60), { [field]: value });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ScheduleOptionsError);
    expect((caught as ScheduleOptionsError).field).toBe(field);
    expect((caught as ScheduleOptionsError).reason).toBe(reason);

    const api = await t.api('POST', '/api/schedules', {
      name: 'bad',
      queue: t.queue,
      trigger: { type: 'interval', seconds: 60 },
      [field]: value,
    });
    expect(api.status).toBe(400);
    expect(api.body).toMatchObject({ field, error: `${field}: ${reason}` });

    const cli = await runBullbeat(
      ['schedule:add', '--name', 'bad', '--every', '60', '--queue', t.queue, flag, String(value)],
      { env: { BULLBEAT_PREFIX: t.prefix } },
    );
    expect(cli.code).toBe(2);
    // commander checks --misfire's choices first (MISFIRE_POLICIES, the schema's own list) and says so
    expect(cli.stderr).toContain(
      field === 'misfire' ? `'${flag} <policy>' argument '${value}' is invalid` : `${flag}: ${reason}`,
    );
    expect(await t.scheduler.get('bad')).toBeUndefined();
  });
});
