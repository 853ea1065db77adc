// The selector syntax (Kubernetes'): what parses, what each requirement matches, and the errors that
// name the field and the position where reading stopped.
import { describe, expect, it } from 'vitest';
import { SelectorError } from '../../src/errors/index.js';
import { matchesSelector, parseSelector } from '../../src/store/forms/selector.js';

describe('parseSelector', () => {
  it('reads =, ==, !=, in, notin, key and !key, joined by commas, spaces allowed', () => {
    const s = parseSelector(
      ' tenant=acme, team != ops,tier in (gold, silver),env notin (dev),region,!legacy,a==b',
    );
    expect(s.requirements).toEqual([
      { key: 'tenant', op: 'eq', values: ['acme'] },
      { key: 'team', op: 'neq', values: ['ops'] },
      { key: 'tier', op: 'in', values: ['gold', 'silver'] },
      { key: 'env', op: 'notin', values: ['dev'] },
      { key: 'region', op: 'exists', values: [] },
      { key: 'legacy', op: 'absent', values: [] },
      { key: 'a', op: 'eq', values: ['b'] },
    ]);
    expect(parseSelector('example.com/owner=ann').requirements[0]?.key).toBe('example.com/owner');
  });

  it('matches as Kubernetes does: != and notin hold when the key is absent', () => {
    const acme = { tenant: 'acme', team: 'billing' };
    const m = (text: string, labels?: Record<string, string>) => matchesSelector(parseSelector(text), labels);
    expect(m('tenant=acme,team!=ops', acme)).toBe(true);
    expect(m('tenant=acme,team!=billing', acme)).toBe(false);
    expect(m('team!=ops', {})).toBe(true);
    expect(m('team notin (ops,billing)', acme)).toBe(false);
    expect(m('tenant in (globex,acme)', acme)).toBe(true);
    expect(m('tenant', acme)).toBe(true);
    expect(m('!tenant', acme)).toBe(false);
    expect(m('!tenant', undefined)).toBe(true);
  });

  it.each([
    ['', 'must not be empty', 0],
    ['tenant=acme,', 'expected a label key', 12],
    ['tenant=acme,,team=x', 'expected a label key', 12],
    ['my key=x', 'expected "=", "!=", "in", "notin", "," or the end', 3],
    ['tenant=a b', 'expected "," between requirements', 9],
    ['tenant in (a,b', 'expected "," or ")" in a value list', 14],
    ['tenant in a', 'expected "(" after in/notin', 10],
    ['tenant=-x', 'value "-x"', 7],
    ['-bad=x', 'key "-bad"', 0],
  ])('refuses %j: %s at %i', (text, reason, position) => {
    let err: unknown;
    try {
      parseSelector(text, '--selector');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SelectorError);
    const e = err as SelectorError;
    expect(e.field).toBe('--selector');
    expect(e.reason).toContain(reason);
    expect(e.position).toBe(position);
    expect(e.message.startsWith(`--selector: ${JSON.stringify(text)}: `)).toBe(true);
  });
});
