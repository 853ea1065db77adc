import { describe, expect, it } from 'vitest';
import { describeCron, describeSeconds } from '../../src/cron/index.js';
import { CronSyntaxError, InvalidTimezoneError } from '../../src/errors/index.js';
import { describeTrigger } from '../../src/triggers/index.js';

describe('describeCron', () => {
  it.each([
    ['0 9 * * 1-5', 'America/New_York', 'At 09:00, Monday through Friday (America/New_York)'],
    ['*/15 * * * *', undefined, 'Every 15 minutes (UTC)'],
    ['* * * * *', undefined, 'Every minute (UTC)'],
    ['0 * * * *', undefined, 'At minute 0 of every hour (UTC)'],
    ['0 */2 * * *', undefined, 'At minute 0, every 2 hours (UTC)'],
    ['*/5 9-17 * * 1-5', undefined, 'Every 5 minutes, from 09:00 through 17:59, Monday through Friday (UTC)'],
    ['0 9,17 * * *', 'Europe/Paris', 'At 09:00 and 17:00 (Europe/Paris)'],
    ['30 0 9 * * *', undefined, 'At 09:00:30 (UTC)'],
    ['*/10 * * * * *', undefined, 'Every 10 seconds (UTC)'],
    ['0 0 1 * *', undefined, 'At 00:00, on the 1st of the month (UTC)'],
    ['0 0 L * *', undefined, 'At 00:00, on the last day of the month (UTC)'],
    ['0 0 15W * *', undefined, 'At 00:00, on the weekday nearest the 15th of the month (UTC)'],
    ['0 0 * * 5L', undefined, 'At 00:00, on the last Friday of the month (UTC)'],
    ['0 0 * * 1#2', undefined, 'At 00:00, on the second Monday of the month (UTC)'],
    ['0 12 * * SAT,SUN', undefined, 'At 12:00, on Saturday and Sunday (UTC)'],
    ['0 0 1 * 1', undefined, 'At 00:00, on the 1st of the month or on Monday (UTC)'],
    ['0 0 * JAN-MAR *', undefined, 'At 00:00, in January through March (UTC)'],
    ['@daily', undefined, 'At 00:00 (UTC)'],
    ['@weekly', undefined, 'At 00:00, on Sunday (UTC)'],
  ])('%s in %s', (expression, timezone, words) => {
    expect(describeCron(expression, timezone === undefined ? {} : { timezone })).toBe(words);
  });

  it('says AND when both day fields are restricted and dayMatch is and', () => {
    expect(describeCron('0 0 1 * 1', { dayMatch: 'and' })).toBe(
      'At 00:00, on the 1st of the month and on Monday (UTC)',
    );
  });

  it('rejects what the parser rejects', () => {
    expect(() => describeCron('0 0 32 * *')).toThrow(CronSyntaxError);
    expect(() => describeCron('0 0 * * *', { timezone: 'Mars/Olympus' })).toThrow(InvalidTimezoneError);
  });
});

describe('describeTrigger', () => {
  it('describes intervals, dates, crons and compounds', () => {
    expect(describeTrigger({ type: 'interval', seconds: 90 })).toBe('Every 1 minute 30 seconds');
    expect(describeTrigger({ type: 'interval', seconds: 1 })).toBe('Every second');
    expect(describeTrigger({ type: 'interval', seconds: 0.1 })).toBe('Every 0.1 seconds');
    expect(describeTrigger({ type: 'interval', seconds: 3600, jitter: 30 })).toBe(
      'Every 1 hour (plus up to 30 seconds of jitter)',
    );
    expect(describeTrigger({ type: 'date', at: Date.UTC(2026, 11, 1, 9) })).toBe(
      'Once, at 2026-12-01 09:00:00 UTC',
    );
    expect(
      describeTrigger({
        type: 'compound',
        logic: 'or',
        triggers: [
          { type: 'interval', seconds: 3600 },
          { type: 'cron', expression: '0 9 * * *', timezone: 'Europe/Paris' },
        ],
      }),
    ).toBe('Whichever comes first of: Every 1 hour; At 09:00 (Europe/Paris)');
    expect(describeSeconds(86_400 + 60)).toBe('1 day 1 minute');
  });
});
