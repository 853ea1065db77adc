import { SelectorError } from '../../errors/selector-error.js';
import { labelKeyProblem, labelValueProblem } from './labels.js';

/**
 * One requirement of a label selector (Kubernetes' syntax):
 * `key=value` (also `==`), `key!=value` (true too when the key is absent), `key in (a,b)`,
 * `key notin (a,b)` (true too when absent), `key` (has the label), `!key` (does not).
 */
export type Requirement =
  | { key: string; op: 'eq' | 'neq'; values: [string] }
  | { key: string; op: 'in' | 'notin'; values: string[] }
  | { key: string; op: 'exists' | 'absent'; values: [] };

/** A parsed selector: every requirement must hold (they are joined by `,`). */
export interface Selector {
  readonly text: string;
  readonly requirements: readonly Requirement[];
}

/** Does a schedule with `labels` match? (The index answers the same for stored schedules.) */
export function matchesSelector(selector: Selector, labels: Record<string, string> | undefined): boolean {
  return selector.requirements.every((r) => {
    const v = labels?.[r.key];
    if (r.op === 'eq' || r.op === 'in') return v !== undefined && r.values.includes(v);
    if (r.op === 'neq' || r.op === 'notin') return v === undefined || !r.values.includes(v);
    return r.op === 'exists' ? v !== undefined : v === undefined;
  });
}

const KEY_CHARS = /[A-Za-z0-9._\-/]/;
const VALUE_CHARS = /[A-Za-z0-9._-]/;

/**
 * Parse a selector; a `SelectorError` naming `field` and the position where it stopped otherwise.
 * An empty selector is refused: it would select every schedule, which a bulk change must say outright.
 */
export function parseSelector(text: unknown, field = 'selector'): Selector {
  if (typeof text !== 'string') {
    throw new SelectorError(field, String(text), `must be a string, got ${typeof text}`, 0);
  }
  let i = 0;
  const fail = (reason: string, at = i): never => {
    throw new SelectorError(field, text, reason, at);
  };
  const space = () => {
    while (i < text.length && text[i] === ' ') i++;
  };
  const word = (chars: RegExp): string => {
    const start = i;
    while (i < text.length && chars.test(text[i]!)) i++;
    return text.slice(start, i);
  };
  const key = (): string => {
    space();
    const start = i;
    const k = word(KEY_CHARS);
    if (k === '') fail('expected a label key');
    const problem = labelKeyProblem(k);
    if (problem !== undefined) fail(problem, start);
    return k;
  };
  const value = (): string => {
    space();
    const start = i;
    const v = word(VALUE_CHARS);
    const problem = labelValueProblem(v);
    if (problem !== undefined) fail(problem, start);
    return v;
  };
  const list = (): string[] => {
    space();
    if (text[i] !== '(') fail('expected "(" after in/notin');
    i++;
    const values = [value()];
    space();
    while (text[i] === ',') {
      i++;
      values.push(value());
      space();
    }
    if (text[i] !== ')') fail('expected "," or ")" in a value list');
    i++;
    return values;
  };
  const requirement = (): Requirement => {
    space();
    if (text[i] === '!') {
      i++;
      return { key: key(), op: 'absent', values: [] };
    }
    const k = key();
    space();
    if (text.startsWith('!=', i)) {
      i += 2;
      return { key: k, op: 'neq', values: [value()] };
    }
    if (text.startsWith('==', i) || text[i] === '=') {
      i += text.startsWith('==', i) ? 2 : 1;
      return { key: k, op: 'eq', values: [value()] };
    }
    if (/^notin[ (]/.test(text.slice(i))) {
      i += 5;
      return { key: k, op: 'notin', values: list() };
    }
    if (/^in[ (]/.test(text.slice(i))) {
      i += 2;
      return { key: k, op: 'in', values: list() };
    }
    if (i < text.length && text[i] !== ',') fail('expected "=", "!=", "in", "notin", "," or the end');
    return { key: k, op: 'exists', values: [] };
  };
  space();
  if (i === text.length) fail('must not be empty (it would select every schedule)');
  const requirements = [requirement()];
  space();
  while (i < text.length) {
    if (text[i] !== ',') fail('expected "," between requirements');
    i++;
    requirements.push(requirement());
    space();
  }
  return { text, requirements };
}
