// Conformance: bad input. Every CronSyntaxError names the field and the offending text; an expression
// that can never fire is rejected when parsed; an unknown time zone is an InvalidTimezoneError.
import { describe, expect, it } from 'vitest';
import { CronParser } from '../../src/cron/index.js';
import type { CronField } from '../../src/errors/index.js';
import { BullbeatError, CronSyntaxError, InvalidTimezoneError } from '../../src/errors/index.js';

function syntaxError(expr: string, options?: ConstructorParameters<typeof CronParser>[1]): CronSyntaxError {
  try {
    new CronParser(expr, options);
  } catch (err) {
    expect(err).toBeInstanceOf(CronSyntaxError);
    expect(err).toBeInstanceOf(BullbeatError);
    return err as CronSyntaxError;
  }
  throw new Error(`expected "${expr}" to be rejected`);
}

/** [expression, field, a token that err.text must contain] */
const fieldErrors: [string, CronField, string][] = [
  // out of range
  ['60 * * * *', 'minute', '60'],
  ['* 24 * * *', 'hour', '24'],
  ['* * 0 * *', 'day-of-month', '0'],
  ['* * 32 * *', 'day-of-month', '32'],
  ['* * * 0 *', 'month', '0'],
  ['* * * 13 *', 'month', '13'],
  ['* * * * 8', 'day-of-week', '8'],
  ['60 * * * * *', 'second', '60'],
  ['0 60 * * * *', 'minute', '60'],
  ['0 0 24 * * *', 'hour', '24'],
  ['0-60 * * * *', 'minute', '0-60'],
  ['1,2,99 * * * *', 'minute', '99'],
  ['99999999999999999999 * * * *', 'minute', '99999999999999999999'],
  ['0 0 * * 8#1', 'day-of-week', '8#1'],
  ['0 0 * * 1#6', 'day-of-week', '1#6'],
  ['0 0 * * 1#0', 'day-of-week', '1#0'],
  ['0 0 0W * *', 'day-of-month', '0W'],
  ['0 0 32W * *', 'day-of-month', '32W'],
  // step 0
  ['*/0 * * * *', 'minute', '*/0'],
  ['0 0 1-31/0 * *', 'day-of-month', '1-31/0'],
  ['0 */0 * * *', 'hour', '*/0'],
  // reversed range
  ['0 0 * * 5-1', 'day-of-week', '5-1'],
  ['30-10 * * * *', 'minute', '30-10'],
  ['0 0 * DEC-JAN *', 'month', 'DEC-JAN'],
  // unknown names
  ['0 0 * FOO *', 'month', 'FOO'],
  ['0 0 * * FUNDAY', 'day-of-week', 'FUNDAY'],
  ['0 0 * * JAN', 'day-of-week', 'JAN'],
  ['0 0 * MON *', 'month', 'MON'],
  ['0 0 MON * *', 'day-of-month', 'MON'],
  // garbage
  ['a b c d e', 'minute', 'a'],
  ['0 0 * * 1x', 'day-of-week', '1x'],
  ['0 0 ** * *', 'day-of-month', '**'],
  ['0 0 1- * *', 'day-of-month', '1-'],
  ['0 0 -1 * *', 'day-of-month', '-1'],
  ['*/ * * * *', 'minute', '*/'],
  ['0 0 1/ * *', 'day-of-month', '1/'],
  ['0 0 , * *', 'day-of-month', ','],
  ['0 0 1,,2 * *', 'day-of-month', ','],
  ['0 0 L-x * *', 'day-of-month', 'L-x'],
  ['0 0 W * *', 'day-of-month', 'W'],
  ['0 * * * 1.5', 'day-of-week', '1.5'],
  ['+5 * * * *', 'minute', '+5'],
  ['L * * * *', 'minute', 'L'],
  ['0 0 1#2 * *', 'day-of-month', '1#2'],
  ['0 0 * * 1W', 'day-of-week', '1W'],
  ['0 L * * *', 'hour', 'L'],
  ['0 0 * L *', 'month', 'L'],
  ['0 0 * * */0', 'day-of-week', '*/0'],
];

describe('field errors name the field and its text', () => {
  for (const [expr, field, token] of fieldErrors) {
    it(`"${expr}" -> ${field} "${token}"`, () => {
      const err = syntaxError(expr);
      expect(err.field).toBe(field);
      expect(err.text).toContain(token);
      expect(err.expression).toBe(expr);
      expect(err.reason.length).toBeGreaterThan(0);
      expect(err.message).toContain(`cron "${expr}"`);
      expect(err.message).toContain(`${field} "${err.text}"`);
    });
  }

  it('the message of the documented example reads exactly as in the issue', () => {
    const err = syntaxError('0 0 32 * *');
    expect(err.message).toBe('cron "0 0 32 * *": day-of-month "32": out of range 1-31');
    expect(err.reason).toBe('out of range 1-31');
  });

  it('the out-of-range reason gives the range of each field', () => {
    expect(syntaxError('60 * * * *').reason).toContain('0-59');
    expect(syntaxError('* 24 * * *').reason).toContain('0-23');
    expect(syntaxError('* * * 13 *').reason).toContain('1-12');
    expect(syntaxError('* * * * 8').reason).toContain('0-7');
    expect(syntaxError('60 * * * * *').reason).toContain('0-59');
  });
});

describe('whole-expression errors', () => {
  const cases = ['', '   ', '0 0 * *', '*', '0 0 0 * * * *', '0 0 0 0 * * * *', '@foo', '@', '@daily 5'];
  for (const expr of cases) {
    it(`"${expr}" -> expression`, () => {
      const err = syntaxError(expr);
      expect(err.field).toBe('expression');
      expect(err.expression).toBe(expr);
      expect(err.message.startsWith(`cron "${expr}": `)).toBe(true);
    });
  }

  it('the field count is in the reason', () => {
    expect(syntaxError('0 0 * *').reason).toMatch(/4/);
    expect(syntaxError('0 0 0 * * * *').reason).toMatch(/7/);
  });
});

describe('expressions that can never fire are rejected when parsed', () => {
  const never: [string, ConstructorParameters<typeof CronParser>[1]?][] = [
    ['0 0 30 2 *'],
    ['0 0 31 2 *'],
    ['0 0 30,31 2 *'],
    ['0 0 31 4,6,9,11 *'],
    ['0 0 31 APR *'],
    ['0 0 30W 2 *'],
    ['0 0 31W 11 *'],
    ['0 0 0 30 2 *'],
    ['0 0 30 2 *', { timezone: 'America/New_York' }],
    ['0 0 31 2 1', { dayMatch: 'and' }],
    ['0 0 30 2 */2'],
    ['0 0 30 2 ?'],
  ];
  for (const [expr, options] of never) {
    it(`"${expr}"${options ? ` ${JSON.stringify(options)}` : ''}`, () => {
      const err = syntaxError(expr, options);
      expect(err.field).toBe('expression');
      expect(err.expression).toBe(expr);
    });
  }

  it('but the Vixie OR makes "0 0 31 2 1" fire on the Mondays of February', () => {
    const p = new CronParser('0 0 31 2 1');
    expect(new Date(p.next(Date.parse('2026-03-11T10:17:23Z'))!).toISOString()).toBe(
      '2027-02-01T00:00:00.000Z',
    );
  });

  it('and rare-but-possible expressions are accepted (Feb 29 on a Monday; a fifth Friday in February)', () => {
    const feb29Monday = new CronParser('0 0 29 2 1', { dayMatch: 'and' });
    expect(new Date(feb29Monday.next(Date.parse('2026-03-11T10:17:23Z'))!).toISOString()).toBe(
      '2044-02-29T00:00:00.000Z',
    );
    const fifthFridayFeb = new CronParser('0 0 * 2 5#5');
    expect(new Date(fifthFridayFeb.next(Date.parse('2026-03-11T10:17:23Z'))!).toISOString()).toBe(
      '2036-02-29T00:00:00.000Z',
    );
  });
});

describe('time zones', () => {
  for (const zone of ['Mars/Olympus', 'America/New_Yrok', 'Not a zone', 'UTC+25']) {
    it(`"${zone}" -> InvalidTimezoneError naming it`, () => {
      let caught: unknown;
      try {
        new CronParser('0 9 * * *', { timezone: zone });
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(InvalidTimezoneError);
      expect(caught).toBeInstanceOf(BullbeatError);
      expect((caught as InvalidTimezoneError).timezone).toBe(zone);
      expect((caught as Error).message).toContain(zone);
    });
  }

  it('a syntax error is still a syntax error with a valid zone', () => {
    expect(syntaxError('61 * * * *', { timezone: 'Europe/London' }).field).toBe('minute');
  });
});
