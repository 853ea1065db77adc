import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { CalendarError, ConfigError } from '../../errors/index.js';
import { type CalendarPlan, calendarPlan } from '../../insight/index.js';
import type { CalendarInput } from '../../scheduler/index.js';
import { cliChange } from '../cli-actor.js';
import type { CliIO } from '../cli-io.js';
import { commandContext } from '../command-context.js';
import { ExitCode } from '../exit-codes.js';
import { formatTable, shortInstant } from '../format-table.js';
import { shown } from '../terminal-text.js';
import { withManager } from './admin.js';

/** Options of `calendar:define`. */
export interface CalendarDefineOptions {
  /** Comma-separated dates or ranges (`2026-12-25,2026-12-31..2027-01-01`); repeatable. */
  dates?: string[];
  /** An `.ics` file to import. */
  ics?: string;
  /** A rule; repeatable (`--rule weekends --rule "business-day 3"`). */
  rule?: string[];
  /** Show what the change would do to the schedules on the calendar; write nothing. */
  dryRun?: boolean;
  json?: boolean;
}

/**
 * `calendar:define <name> [--dates ...] [--ics file.ics] [--rule ...]`: define a named calendar, or
 * write its next version. Bad input exits 2 naming the flag or field; nothing is written then.
 */
export function calendarDefineCommand(io: CliIO) {
  return async (name: string, options: CalendarDefineOptions, command: Command): Promise<number> => {
    const input: CalendarInput = {};
    if (options.dates)
      input.dates = options.dates
        .flatMap((d) => d.split(','))
        .map((d) => d.trim())
        .filter(Boolean);
    if (options.rule) input.rules = options.rule;
    if (options.ics !== undefined) {
      try {
        input.ics = await readFile(resolve(io.cwd, options.ics), 'utf8');
      } catch (err) {
        throw new ConfigError('--ics', `cannot read ${options.ics}: ${(err as Error).message}`);
      }
    }
    if (!input.dates && !input.rules && input.ics === undefined) {
      throw new ConfigError('--dates', 'give --dates, --ics or --rule (any of them)');
    }
    const ctx = commandContext(io, command, 'cli');
    if (options.dryRun) {
      const plan = await withManager(ctx, (m) => calendarPlan(m, name, input));
      io.stdout(options.json ? `${JSON.stringify(plan, null, 2)}\n` : planText(plan));
      return plan.changed && plan.moved.length > 0 ? ExitCode.changes : ExitCode.ok;
    }
    const done = await withManager(ctx, (m) => m.calendars.define(name, input, cliChange()));
    if (options.json) {
      io.stdout(`${JSON.stringify(done, null, 2)}\n`);
      return ExitCode.ok;
    }
    io.stdout(
      done.changed
        ? `calendar ${shown(name)}: version ${done.version}${done.previousVersion ? ` (was ${done.previousVersion})` : ''}\n`
        : `calendar ${shown(name)}: unchanged (version ${done.version})\n`,
    );
    return ExitCode.ok;
  };
}

/** A calendar plan in words: the version it would write, each schedule it moves with its times before and after. */
export function planText(plan: CalendarPlan): string {
  const times = (list: number[]) => (list.length === 0 ? 'none' : list.map(shortInstant).join(', '));
  const head = !plan.changed
    ? `calendar ${shown(plan.name)}: unchanged (version ${plan.versionAfter}): nothing would be written`
    : plan.versionBefore === undefined
      ? `calendar ${shown(plan.name)}: would be defined (version 1)`
      : `calendar ${shown(plan.name)}: would become version ${plan.versionAfter} (now ${plan.versionBefore})`;
  const lines = [`${head}; dry run at ${shortInstant(plan.at)}, nothing written`, ''];
  for (const e of plan.moved) {
    lines.push(
      `~ ${shown(e.id)}`,
      `    next before: ${times(e.before)}`,
      `    next after:  ${times(e.after)}`,
    );
  }
  for (const e of plan.errors) lines.push(`! ${shown(e.id)}: ${shown(e.error)}`);
  if (plan.moved.length > 0 || plan.errors.length > 0) lines.push('');
  const n = plan.moved.length;
  lines.push(
    `${n} schedule${n === 1 ? '' : 's'} with other fire times, ${plan.unchanged} unchanged${plan.errors.length > 0 ? `, ${plan.errors.length} not computed` : ''}`,
  );
  return `${lines.join('\n')}\n`;
}

/** `calendar:list [--json]`: every calendar with its version, dates and rules counted. */
export function calendarListCommand(io: CliIO) {
  return async (options: { json?: boolean }, command: Command): Promise<number> => {
    const ctx = commandContext(io, command, 'cli');
    const list = await withManager(ctx, (m) => m.calendars.list());
    if (options.json) {
      io.stdout(`${JSON.stringify(list, null, 2)}\n`);
      return ExitCode.ok;
    }
    if (list.length === 0) {
      io.stdout('no calendars (bullbeat calendar:define <name> --dates ... | --ics file.ics | --rule ...)\n');
      return ExitCode.ok;
    }
    const rows = list.map((c) => [
      shown(c.name),
      `v${c.version}`,
      String(c.spec.dates.length),
      shown(c.spec.rules.join('; ')),
      shortInstant(c.at),
      shown(c.by),
    ]);
    io.stdout(`${formatTable(['NAME', 'VERSION', 'DATES', 'RULES', 'CHANGED (UTC)', 'BY'], rows)}\n`);
    return ExitCode.ok;
  };
}

/** `calendar:show <name> [--json]`: its current version's dates and rules, and its changes. */
export function calendarShowCommand(io: CliIO) {
  return async (name: string, options: { json?: boolean }, command: Command): Promise<number> => {
    const ctx = commandContext(io, command, 'cli');
    const { calendar, history } = await withManager(ctx, async (m) => ({
      calendar: await m.calendars.get(name),
      history: await m.calendars.history(name, 20),
    }));
    if (!calendar) throw new CalendarError(name, 'name', 'no such calendar (bullbeat calendar:list)');
    if (options.json) {
      io.stdout(`${JSON.stringify({ ...calendar, history }, null, 2)}\n`);
      return ExitCode.ok;
    }
    const lines = [
      `calendar ${shown(name)}, version ${calendar.version} (${calendar.origin}), by ${shown(calendar.by)} at ${shortInstant(calendar.at)} UTC`,
      `rules: ${calendar.spec.rules.length === 0 ? 'none' : shown(calendar.spec.rules.join('; '))}`,
      `dates (${calendar.spec.dates.length}):`,
      ...calendar.spec.dates.map((d) => `  ${shown(d.date)}${d.name ? `  ${shown(d.name)}` : ''}`),
      'changes:',
      ...history.map(
        (h) => `  v${h.version}  ${h.op}  ${shortInstant(h.at)}  ${shown(h.actor)} via ${h.source}`,
      ),
    ];
    io.stdout(`${lines.join('\n')}\n`);
    return ExitCode.ok;
  };
}
