import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDashboard, type TestDashboard } from './harness.js';

const DAY = 86_400_000;

/**
 * Every minute of the 30 days from `from` excluded, two cron entries per day (even and odd minutes:
 * spans of one minute), behind 935 dates long past: 995 entries whose walk cannot end within 50 ms.
 */
function thirtyDaysExcluded(from: number): string[] {
  const entries = Array.from({ length: 935 }, (_, i) =>
    new Date(Date.UTC(1990, 0, 1) + i * DAY).toISOString().slice(0, 10),
  );
  for (let d = 0; d < 30; d++) {
    const t = new Date(from + d * DAY);
    const day = `${t.getUTCDate()} ${t.getUTCMonth() + 1}`;
    entries.push(`*/2 * ${day} *`, `1-59/2 * ${day} *`);
  }
  return entries;
}

describe('API: what cannot be computed within the trigger time budget', () => {
  let t: TestDashboard;
  let except: string[];
  beforeAll(async () => {
    t = await startTestDashboard();
    except = thirtyDaysExcluded(Date.now());
  });
  afterAll(async () => {
    await t.cleanup();
  });

  it('POST /api/schedules refuses it with 400 naming the schedule, except and the budget; /healthz answers meanwhile', async () => {
    const created = t.api('POST', '/api/schedules', {
      name: 'heavy',
      queue: t.queue,
      trigger: { type: 'interval', seconds: 60 },
      except,
    });
    const health = await fetch(`${t.url}/healthz`);
    expect(health.status).toBe(200);
    const res = await created;
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(
      /^except: the next fire time of "heavy" cannot be computed within the trigger time budget \(50 ms of CPU, triggerBudgetMs\)/,
    );
    expect((await t.api('GET', '/api/schedules/heavy')).status).toBe(404); // nothing stored
  });

  it('the same as an except trigger: 400 naming the trigger', async () => {
    const res = await t.api('POST', '/api/schedules', {
      name: 'heavy2',
      queue: t.queue,
      trigger: { type: 'except', trigger: { type: 'interval', seconds: 60 }, except },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^trigger: the next fire time of "heavy2" cannot be computed within/);
  });

  it('GET /api/preview with the same list: 400 naming except and the budget', async () => {
    const q = new URLSearchParams({ interval: '60', except: except.join('\n') });
    const res = await t.api('GET', `/api/preview?${q}`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/except.*cannot be computed within the trigger time budget \(50 ms/);
  });
});
