import { describe, expect, it } from 'vitest';
import { firePreview } from '../../dashboard/fire-preview.js';
import {
  labelledTime,
  parseZoneChoice,
  timeAt,
  windowAt,
  zoneChoiceText,
  zoneFor,
} from '../../dashboard/views/time-zone.js';
import { CronTrigger, IntervalTrigger, jitterMsOf } from '../../src/triggers/index.js';

const AT = Date.UTC(2026, 11, 2, 14, 0, 0); // Wed 2026-12-02 14:00:00 UTC

describe("the dashboard's time-zone choice", () => {
  it('reads the cookie, UTC for anything it does not know', () => {
    expect(parseZoneChoice(undefined)).toEqual({ kind: 'utc' });
    expect(parseZoneChoice('schedule')).toEqual({ kind: 'schedule' });
    expect(parseZoneChoice('local:Europe/Paris')).toEqual({ kind: 'local', zone: 'Europe/Paris' });
    expect(parseZoneChoice('local:Mars/Olympus')).toEqual({ kind: 'utc' });
    expect(parseZoneChoice('<script>')).toEqual({ kind: 'utc' });
    expect(zoneChoiceText(parseZoneChoice('local:Asia/Tokyo'))).toBe('local:Asia/Tokyo');
  });

  it("gives each time its zone: the viewer's, the schedule's (UTC without one), or UTC", () => {
    expect(zoneFor({ kind: 'utc' }, 'Europe/Berlin')).toBe('UTC');
    expect(zoneFor({ kind: 'schedule' }, 'Europe/Berlin')).toBe('Europe/Berlin');
    expect(zoneFor({ kind: 'schedule' }, null)).toBe('UTC');
    expect(zoneFor({ kind: 'local', zone: 'Asia/Tokyo' }, 'Europe/Berlin')).toBe('Asia/Tokyo');
  });

  it('labels every time with its zone', () => {
    expect(labelledTime(AT, 'UTC')).toBe('2026-12-02 14:00:00 UTC');
    expect(labelledTime(AT, 'Europe/Paris')).toBe('2026-12-02 15:00:00 Europe/Paris');
    expect(labelledTime(null, 'UTC')).toBe('—');
    expect(timeAt(AT, 'Asia/Tokyo', true).value).toContain('>Wed 2026-12-02 23:00:00 Asia/Tokyo</time>');
    expect(timeAt(AT, 'Asia/Tokyo').value).toContain('data-zone="Asia/Tokyo"');
  });

  it('shows a jittered occurrence as its window', () => {
    expect(windowAt(AT, 30_000, 'UTC').value).toContain('>Wed 2026-12-02 14:00:00–14:00:30 UTC</time>');
    expect(windowAt(AT, 30_000, 'UTC').value).toContain('(jitter 30 s)');
    // a window over midnight names the end's day
    const late = Date.UTC(2026, 11, 2, 23, 59, 0);
    expect(windowAt(late, 120_000, 'UTC').value).toContain(
      'Wed 2026-12-02 23:59:00–Thu 2026-12-03 00:01:00 UTC</time>',
    );
  });
});

describe('the next fire times of a jittered trigger', () => {
  it('are its planned instants, the same at every reading', () => {
    const trigger = new IntervalTrigger(3600, { jitter: 30 }).toJSON();
    expect(jitterMsOf(trigger)).toBe(30_000);
    // the stored due time: some instant inside the first window
    const due = AT + 17_345;
    const a = firePreview(trigger, due, AT - 1000);
    const b = firePreview(trigger, due, AT - 1000);
    expect(a).toEqual(b);
    expect(a).toEqual({ times: [0, 1, 2, 3, 4].map((i) => AT + i * 3_600_000), jitterMs: 30_000 });
  });

  it('of a jittered cron in its zone, too; without jitter, the stored due time first', () => {
    const cron = new CronTrigger('0 9 * * *', { timezone: 'Europe/Berlin', jitter: 600 }).toJSON();
    const nine = Date.UTC(2026, 11, 3, 8, 0, 0); // 09:00 in Berlin
    const p = firePreview(cron, nine + 599_000, nine - 3_600_000, 3);
    expect(p).toEqual({ times: [nine, nine + 86_400_000, nine + 2 * 86_400_000], jitterMs: 600_000 });
    const plain = new CronTrigger('0 9 * * *', { timezone: 'Europe/Berlin' }).toJSON();
    expect(firePreview(plain, nine, nine - 1000, 2)).toEqual({
      times: [nine, nine + 86_400_000],
      jitterMs: 0,
    });
  });
});
