import type { Command } from 'commander';
import { fieldValue, type PlannedCalendar, type SchedulePlan, withPlanMode } from '../../scheduler/index.js';
import type { CliIO } from '../cli-io.js';
import { commandContext, loadScheduler, probeSchedulerRedis } from '../command-context.js';
import { ExitCode } from '../exit-codes.js';
import { shown } from '../terminal-text.js';

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.000Z$/, 'Z');

/** `a, b, c` of fire times, or what stands for none. */
function times(list: readonly number[], none: string): string {
  return list.length === 0 ? none : list.map(iso).join(', ');
}

/** The plan in lines, as `bullbeat plan` prints it. */
export function planLines(plan: SchedulePlan, module: string): string[] {
  const lines: string[] = [`plan: ${module} against prefix "${plan.prefix}" at ${iso(plan.at)}`, ''];
  for (const a of plan.added) {
    lines.push(`+ add ${a.id} (${a.name} on queue ${a.queue}): ${fieldValue(a.trigger)}`);
    lines.push(`    next: ${times(a.nextAfter, '(none)')}`);
    if (a.renameOf) lines.push(`    looks like a rename of ${a.renameOf}: see below`);
  }
  for (const c of plan.changed) {
    const effects = c.effects.length > 0 ? ` [${c.effects.join(', ')}]` : '';
    lines.push(`~ change ${c.id} (${c.status})${effects}`);
    for (const f of c.changes) {
      lines.push(`    ${f.field}: ${fieldValue(f.before)} -> ${fieldValue(f.after)}`);
    }
    lines.push(`    next before: ${times(c.nextBefore, `(none: ${c.status})`)}`);
    lines.push(`    next after:  ${times(c.nextAfter, '(none)')}`);
  }
  for (const r of plan.removed) {
    const what =
      r.effect === 'orphaned'
        ? 'paused as orphaned by the next scheduler start'
        : `stays ${r.status}: nothing changes`;
    lines.push(`- not in code ${r.id} (${r.name} on queue ${r.queue}, ${r.status}): ${what}`);
    if (r.nextBefore.length > 0) lines.push(`    next (no more): ${times(r.nextBefore, '')}`);
  }
  for (const p of plan.renamed) {
    lines.push(
      `! rename? ${p.from} -> ${p.to}: same handler (${p.name}), queue and trigger under a new id. ` +
        `The new id starts with no history, and until every replica runs this code both ids fire: ` +
        `the same work runs twice (the duplicate-run trap). Keep the id (options.id) if it is the same schedule.`,
    );
  }
  for (const c of plan.calendars) lines.push(...calendarLines(c));
  if (plan.added.length + plan.changed.length + plan.removed.length + plan.calendars.length > 0) {
    lines.push('');
  }
  const orphaned = plan.removed.filter((r) => r.effect === 'orphaned').length;
  if (plan.calendars.length > 0) {
    const changing = plan.calendars.filter((c) => c.changed).length;
    lines.push(
      `${changing} calendar${changing === 1 ? '' : 's'} to define or change, ${plan.calendars.length - changing} unchanged`,
    );
  }
  lines.push(
    `${plan.added.length} to add, ${plan.changed.length} to change, ${orphaned} to orphan, ` +
      `${plan.renamed.length} renamed-looking, ${plan.unchanged} unchanged` +
      (plan.hasChanges ? '' : ': no change'),
  );
  return lines;
}

/** A calendar the module defines: its version, then each schedule on it whose next fire times it moves. */
function calendarLines(c: PlannedCalendar): string[] {
  if (!c.changed) return [`= calendar ${c.name}: unchanged (version ${c.versionAfter})`];
  const head =
    c.versionBefore === undefined
      ? `+ calendar ${c.name}: defined (version 1)`
      : `~ calendar ${c.name}: version ${c.versionBefore} -> ${c.versionAfter}`;
  const lines = [head];
  for (const m of c.moved) {
    lines.push(`    ~ ${m.id}`);
    lines.push(`        next before: ${times(m.before, '(none)')}`);
    lines.push(`        next after:  ${times(m.after, '(none)')}`);
  }
  for (const e of c.errors) lines.push(`    ! ${e.id}: ${e.error}`);
  lines.push(
    `    ${c.moved.length} schedule${c.moved.length === 1 ? '' : 's'} with other fire times, ${c.unchanged} unchanged`,
  );
  return lines;
}

/**
 * `bullbeat plan <jobs-module> [--json]`: what starting this code would do to the stored schedules and
 * the calendars it defines, writing nothing (not even the calendars its top level defines). Exit 0 when it would change nothing, 6 when it would, as any command on an error.
 */
export function planCommand(io: CliIO) {
  return async (specifier: string, options: { json?: boolean }, command: Command): Promise<number> => {
    const ctx = commandContext(io, command, 'cli');
    // loaded in plan mode: what the module defines as it loads (calendars) is collected, not written
    const { path, scheduler } = await withPlanMode(() => loadScheduler(ctx, specifier, io.cwd));
    try {
      await probeSchedulerRedis(ctx, scheduler);
      const plan = await scheduler.plan();
      if (options.json) io.stdout(`${JSON.stringify(plan, null, 2)}\n`);
      else io.stdout(`${planLines(plan, specifier).map(shown).join('\n')}\n`);
      ctx.logger.debug({ jobsModule: path }, 'plan computed');
      return plan.hasChanges ? ExitCode.changes : ExitCode.ok;
    } finally {
      await scheduler.close();
    }
  };
}
