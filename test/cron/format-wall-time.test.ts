import { describe, expect, it } from 'vitest';
import { formatWallTime } from '../../src/cron/index.js';
import { InvalidTimezoneError } from '../../src/errors/index.js';

describe('formatWallTime', () => {
  it('reads an instant as the wall time of a zone, across a DST change', () => {
    expect(formatWallTime(Date.parse('2026-03-08T06:59:59Z'), 'America/New_York')).toBe(
      '2026-03-08 01:59:59',
    );
    expect(formatWallTime(Date.parse('2026-03-08T07:00:00Z'), 'America/New_York')).toBe(
      '2026-03-08 03:00:00',
    );
    expect(formatWallTime(Date.parse('2026-11-30T03:30:00Z'), 'Asia/Kolkata')).toBe('2026-11-30 09:00:00');
  });

  it('adds the weekday on request and defaults to UTC', () => {
    expect(formatWallTime(Date.parse('2026-11-30T09:05:07.900Z'), undefined, { weekday: true })).toBe(
      'Mon 2026-11-30 09:05:07',
    );
    expect(formatWallTime(Date.parse('1969-12-31T23:59:59Z'))).toBe('1969-12-31 23:59:59');
  });

  it('names an unknown zone', () => {
    expect(() => formatWallTime(0, 'Mars/Olympus')).toThrow(InvalidTimezoneError);
  });
});
