import { describe, expect, it } from 'vitest';
import { parseHeartbeat, parseNotifier, parseNotifiers } from '../../src/scheduler/contract/alert-options.js';
import { resolveScheduleOptions } from '../../src/scheduler/contract/resolve-schedule-options.js';
import { deadlineOf, describeExpectations, parseDuration } from '../../src/store/forms/expectations.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';

const define = (expect: unknown) =>
  resolveScheduleOptions({
    options: { id: 's', expect } as never,
    fallbackName: 's',
    defaultQueue: 'q',
    trigger: new IntervalTrigger(60),
    source: 'runtime',
  }).def;
const refusal = (expectValue: unknown): string => {
  try {
    define(expectValue);
  } catch (err) {
    return (err as Error).message;
  }
  return 'accepted';
};

describe('expect: checked once into ms', () => {
  it('stores durations in ms and a wall time as written', () => {
    expect(
      define({
        startedWithin: '2s',
        succeededBy: '09:30',
        maxDuration: '1.5h',
        failuresInARow: 3,
        notify: ['ops'],
      }).expect,
    ).toEqual({
      startedWithinMs: 2000,
      succeededBy: { at: '09:30' },
      maxDurationMs: 5_400_000,
      failuresInARow: 3,
      notify: ['ops'],
    });
    expect(define({ succeededBy: '45m' }).expect).toEqual({ succeededBy: { afterMs: 2_700_000 } });
    expect(define(undefined).expect).toBeUndefined();
  });

  it('refuses bad input naming the field, and what cannot be met', () => {
    expect(refusal({ startedWithin: '120' })).toBe(
      `schedule "s": expect.startedWithin: must be a duration with a unit (ms, s, m, h, d: '30s', '2m'), got "120"`,
    );
    expect(refusal({ maxDuration: 30 })).toMatch(/expect\.maxDuration: must be a duration with a unit/);
    expect(refusal({ startedWithin: '0s' })).toMatch(
      /expect\.startedWithin: cannot be met: "0s" leaves no time/,
    );
    expect(refusal({ succeededBy: '25:00' })).toMatch(
      /expect\.succeededBy: cannot be met: "25:00" is no time of day/,
    );
    expect(refusal({ succeededBy: '0m' })).toMatch(/expect\.succeededBy: cannot be met/);
    expect(refusal({ succeededBy: 'soon' })).toMatch(/expect\.succeededBy: must be a wall time 'HH:mm'/);
    expect(refusal({ failuresInARow: 0 })).toMatch(
      /expect\.failuresInARow: cannot be met: must be an integer >= 1/,
    );
    expect(refusal({ startedWithn: '2s' })).toMatch(/expect\.startedWithn: unknown expectation/);
    expect(refusal({ notify: ['no spaces'] })).toMatch(/expect\.notify\[0\]: must be a notifier name/);
    expect(refusal({ startedWithin: '8d' })).toMatch(/expect\.startedWithin: must be at most 7d/);
  });

  it('reads as a user writes it', () => {
    expect(
      describeExpectations(
        { startedWithinMs: 120_000, succeededBy: { at: '09:30' }, notify: ['ops'] },
        'Europe/Paris',
      ),
    ).toBe('started within 2m, succeeded by 09:30 (Europe/Paris); notify ops');
    expect(parseDuration('500ms')).toEqual({ ms: 500 });
  });
});

describe("succeededBy '09:30' in Europe/Paris across the DST nights", () => {
  const paris = (iso: string) => Date.parse(iso);
  const by = { at: '09:30' };

  it('is 09:30 local on each side of the spring-forward night (08:30Z, then 07:30Z)', () => {
    // 2027-03-28: 02:00 CET -> 03:00 CEST
    expect(new Date(deadlineOf(by, paris('2027-03-27T08:00:00Z'), 'Europe/Paris')).toISOString()).toBe(
      '2027-03-27T08:30:00.000Z',
    );
    expect(new Date(deadlineOf(by, paris('2027-03-28T07:00:00Z'), 'Europe/Paris')).toISOString()).toBe(
      '2027-03-28T07:30:00.000Z',
    );
    // fired at 23:00 CET the night before: the next 09:30 is after the change, 9.5 h later (10.5 on other nights)
    const fire = paris('2027-03-27T22:00:00Z');
    expect(deadlineOf(by, fire, 'Europe/Paris') - fire).toBe(9.5 * 3_600_000);
    const other = paris('2027-03-20T22:00:00Z');
    expect(deadlineOf(by, other, 'Europe/Paris') - other).toBe(10.5 * 3_600_000);
  });

  it('is 09:30 local on each side of the fall-back night (07:30Z, then 08:30Z)', () => {
    // 2027-10-31: 03:00 CEST -> 02:00 CET
    expect(new Date(deadlineOf(by, paris('2027-10-30T07:00:00Z'), 'Europe/Paris')).toISOString()).toBe(
      '2027-10-30T07:30:00.000Z',
    );
    expect(new Date(deadlineOf(by, paris('2027-10-31T08:00:00Z'), 'Europe/Paris')).toISOString()).toBe(
      '2027-10-31T08:30:00.000Z',
    );
  });

  it('a wall time inside the gap is the end of the gap; a repeated one its first pass', () => {
    expect(
      new Date(deadlineOf({ at: '02:30' }, paris('2027-03-27T23:30:00Z'), 'Europe/Paris')).toISOString(),
    ).toBe(
      '2027-03-28T01:00:00.000Z', // 03:00 CEST
    );
    expect(
      new Date(deadlineOf({ at: '02:30' }, paris('2027-10-30T23:30:00Z'), 'Europe/Paris')).toISOString(),
    ).toBe(
      '2027-10-31T00:30:00.000Z', // 02:30 CEST, the first pass
    );
  });

  it('a wall time before the fire time is the next day', () => {
    expect(new Date(deadlineOf(by, paris('2027-03-27T09:00:00Z'), 'Europe/Paris')).toISOString()).toBe(
      '2027-03-28T07:30:00.000Z',
    );
  });
});

describe('notifiers and heartbeat: the operator configures them', () => {
  it('reads each kind', () => {
    expect(
      parseNotifiers(['ops=webhook:https://h.example/x;secret=abc  chat=slack:https://hooks.example/s'], 'X'),
    ).toEqual([
      { name: 'ops', kind: 'webhook', url: 'https://h.example/x', secret: 'abc' },
      { name: 'chat', kind: 'slack', url: 'https://hooks.example/s' },
    ]);
    expect(parseNotifier('pd=pagerduty:R0UT1NG;url=http://127.0.0.1:9/v2/enqueue', 'X')).toEqual({
      name: 'pd',
      kind: 'pagerduty',
      routingKey: 'R0UT1NG',
      url: 'http://127.0.0.1:9/v2/enqueue',
    });
    expect(parseNotifier('pd=pagerduty:K', 'X').url).toBe('https://events.pagerduty.com/v2/enqueue');
  });

  it('refuses a URL that is not http(s), an unknown kind, a name twice, naming the setting', () => {
    expect(() => parseNotifier('ops=webhook:ftp://h.example/x', '--notifier')).toThrow(
      '--notifier: notifier "ops": the webhook URL: must be an http(s) URL, got "ftp://h.example/x"',
    );
    expect(() => parseNotifier('ops=email:a@b', 'BULLBEAT_NOTIFIERS')).toThrow(
      /BULLBEAT_NOTIFIERS: notifier "ops": kind must be one of webhook, slack, pagerduty/,
    );
    expect(() => parseNotifier('webhook:https://x', '--notifier')).toThrow(
      /--notifier: expected name=kind:target/,
    );
    expect(() => parseNotifiers(['a=slack:https://x a=slack:https://y'], 'X')).toThrow(/"a" is named twice/);
    expect(() => parseNotifier('a=slack:https://x;secret=s', 'X')).toThrow(/unknown option "secret"/);
  });

  it('reads the heartbeat, its period with a unit', () => {
    const s = { url: '--heartbeat-url', every: '--heartbeat-every' };
    expect(parseHeartbeat('https://hc.example/ping/1', undefined, s)).toEqual({
      url: 'https://hc.example/ping/1',
      everyMs: 30_000,
    });
    expect(parseHeartbeat('https://hc.example/p', '10s', s)?.everyMs).toBe(10_000);
    expect(() => parseHeartbeat('https://hc.example/p', '10', s)).toThrow(
      /--heartbeat-every: must be a duration with a unit/,
    );
    expect(() => parseHeartbeat('mailto:x@y', '10s', s)).toThrow(
      /--heartbeat-url: the heartbeat: must be an http\(s\) URL/,
    );
    expect(() => parseHeartbeat(undefined, '10s', s)).toThrow(/--heartbeat-every: needs --heartbeat-url/);
  });
});
