// The expectations watch's turn (`AlertStore.checkTurn`): one replica per period, which may check again
// while its turn lasts (its tick come early: bunched timers, a test's clock), never another meanwhile;
// and the alerts' repeating timer (`repeatEvery`) on a clock the test drives.
import { afterEach, describe, expect, it } from 'vitest';
import { repeatEvery } from '../../../src/scheduler/alerts/alert-timers.js';
import { AlertStore } from '../../../src/store/deployment/alert-store.js';
import { ManualClock } from '../../queue/manual-clock.js';
import { waitUntil } from '../../wait-until.js';
import { testEnv } from '../helpers.js';

describe('alerts: the check turn and the timers', () => {
  let env: ReturnType<typeof testEnv>;
  afterEach(() => env.cleanup());

  it('a turn is one replica’s until it lapses; its holder may check again meanwhile, another may not', async () => {
    env = testEnv('alerts-turn');
    const alerts = new AlertStore(env.redis, env.prefix);
    expect(await alerts.checkTurn(300, 'a')).toBe(true);
    expect(await alerts.checkTurn(300, 'a')).toBe(true); // its own tick, early
    expect(await alerts.checkTurn(300, 'b')).toBe(false);
    const pttl = await env.redis.pttl(alerts.keys.check);
    expect(pttl).toBeGreaterThan(0);
    expect(pttl).toBeLessThanOrEqual(300); // the holder's early check does not lengthen its turn
    await waitUntil(async () => (await env.redis.exists(alerts.keys.check)) === 0, 5000);
    expect(await alerts.checkTurn(300, 'b')).toBe(true); // lapsed: the next replica's
    expect(await alerts.checkTurn(300, 'a')).toBe(false);
  });

  it('repeatEvery calls at each period of its clock, as setInterval does, and not after its stop', async () => {
    env = testEnv('alerts-timers');
    const clock = new ManualClock(0);
    const at: number[] = [];
    const stop = repeatEvery(clock, 250, () => at.push(clock.now()));
    await clock.advance(1000);
    expect(at).toEqual([250, 500, 750, 1000]);
    stop();
    expect(clock.pending).toBe(0);
    await clock.advance(1000);
    expect(at).toHaveLength(4);
  });
});
