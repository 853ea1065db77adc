/**
 * What a run does when another run of its schedule is still going (Temporal's `ScheduleOverlapPolicy`
 * set): `skip` it (recorded `skipped`, reason `overlap`), `bufferOne` (start it when the running one
 * ends; at most one waits, later ones are skipped, reason `buffer-full`), `bufferAll` (each waits, in
 * fire-time order), `cancelOther` (the running one is cancelled through its signal, this one starts
 * when it has stopped) or `allowAll` (no limit, and no lease taken).
 */
export const OVERLAP_POLICIES = ['skip', 'bufferOne', 'bufferAll', 'cancelOther', 'allowAll'] as const;
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number];

/** How a run slot is asked for: `none` takes no lease, the others are the policies of that name. */
export type SlotMode = 'none' | Exclude<OverlapPolicy, 'allowAll'>;

/** Every `SlotMode`. */
export const SLOT_MODES: readonly SlotMode[] = ['none', 'skip', 'bufferOne', 'bufferAll', 'cancelOther'];

/**
 * How the run slot is asked for: `none` takes no lease; `skip` allows `cap` live runs; the buffering
 * and cancelling modes one. Resolved once, when a schedule is defined (`overlapRule`), stored in its
 * definition's `run.slot` and carried on each job: no worker derives it.
 */
export interface SlotRule {
  /** How the slot is asked for: without a lease (`none`), or under the policy of that name. */
  mode: SlotMode;
  /** How many runs may hold the slot at once under `skip` (1 under the others, 0 under `none`). */
  cap: number;
}

/** The rule of the defaults (`overlap: 'skip'`, `maxInstances: 1`): one run at a time, the others skipped. */
export const DEFAULT_SLOT_RULE: Readonly<SlotRule> = Object.freeze({ mode: 'skip', cap: 1 });

/** The resolved overlap of a schedule: its policy, its `maxInstances`, and the rule they come to. */
export interface ResolvedOverlap {
  overlap: OverlapPolicy;
  maxInstances: number;
  slot: SlotRule;
}

/**
 * The rule of the one overlap knob: `allowAll` takes no lease; `skip` allows `maxInstances` runs at
 * once (at least 1); the buffering and cancelling policies one.
 */
export function slotRuleOf(overlap: OverlapPolicy, maxInstances: number): SlotRule {
  if (overlap === 'allowAll') return { mode: 'none', cap: 0 };
  if (overlap === 'skip') return { mode: 'skip', cap: Math.max(1, maxInstances) };
  return { mode: overlap, cap: 1 };
}

/**
 * A schedule's overlap options resolved once, at definition: `overlap` decides, and `maxInstances` is
 * how many `skip` lets run at once (`0` = unlimited: `allowAll`, when no `overlap` is given). The
 * deprecated `coalesce` is read as the policy it always stood for: `true` is `overlap: 'skip'` one at
 * a time, `false` leaves the choice to `maxInstances`. The options are checked first (a `coalesce`
 * that contradicts `overlap` or `maxInstances` is refused by `overlapProblem`).
 */
export function resolveOverlap(o: {
  overlap?: OverlapPolicy | undefined;
  maxInstances?: number | undefined;
  coalesce?: boolean | undefined;
}): ResolvedOverlap {
  const maxInstances = o.maxInstances ?? 1;
  const overlap = o.overlap ?? (maxInstances === 0 ? 'allowAll' : 'skip');
  return { overlap, maxInstances, slot: slotRuleOf(overlap, maxInstances) };
}

/**
 * Why a schedule's overlap options contradict each other, and which field says so, or undefined.
 * `overlap: 'skip'` with `maxInstances: 0`, a one-at-a-time policy with `maxInstances` above 1, and
 * `coalesce: true` (one at a time, skipping) beside any other policy or a `maxInstances` other than 1.
 */
export function overlapProblem(o: {
  overlap?: OverlapPolicy | undefined;
  maxInstances?: number | undefined;
  coalesce?: boolean | undefined;
}): { field: 'overlap' | 'coalesce'; reason: string } | undefined {
  if (o.coalesce === true) {
    if (o.overlap !== undefined && o.overlap !== 'skip') {
      return {
        field: 'coalesce',
        reason: `true (deprecated: it means overlap "skip", one run at a time) contradicts overlap "${o.overlap}": give overlap alone`,
      };
    }
    if (o.maxInstances !== undefined && o.maxInstances !== 1) {
      return {
        field: 'coalesce',
        reason: `true (deprecated: it means overlap "skip", one run at a time) contradicts maxInstances ${o.maxInstances}: give overlap "skip" with maxInstances instead`,
      };
    }
  }
  if (o.overlap === 'skip' && o.maxInstances === 0) {
    return {
      field: 'overlap',
      reason: '"skip" contradicts maxInstances 0 (unlimited): use overlap "allowAll", or maxInstances >= 1',
    };
  }
  if (
    o.overlap !== undefined &&
    o.overlap !== 'skip' &&
    o.overlap !== 'allowAll' &&
    (o.maxInstances ?? 1) !== 1
  ) {
    return {
      field: 'overlap',
      reason: `"${o.overlap}" runs one at a time: it cannot go with maxInstances ${o.maxInstances} (only "skip" allows more)`,
    };
  }
  return undefined;
}

/**
 * The rule of a run stored without one: a definition or a job written by an earlier release, which
 * carried `maxInstances`, `coalesce` and maybe `overlap` and left the rule to each worker. Read once,
 * where such a form is decoded (the upgrade path; docs/upgrading.md): `overlap`, when set, decides
 * (`skip` allows `maxInstances` runs, at least 1; the others one at a time); without it `coalesce`
 * (`true` by default then) is `skip` one at a time, `maxInstances: 0` is `allowAll`, `maxInstances: N`
 * is `skip` with N at a time.
 */
export function earlierSlotRule(run: {
  maxInstances?: number | undefined;
  coalesce?: boolean | undefined;
  overlap?: OverlapPolicy | undefined;
}): ResolvedOverlap {
  const maxInstances = run.maxInstances ?? 1;
  const coalesce = run.coalesce ?? true;
  if (run.overlap !== undefined) {
    return { overlap: run.overlap, maxInstances, slot: slotRuleOf(run.overlap, maxInstances) };
  }
  if (coalesce) return { overlap: 'skip', maxInstances: 1, slot: { mode: 'skip', cap: 1 } };
  if (maxInstances === 0) return { overlap: 'allowAll', maxInstances: 0, slot: { mode: 'none', cap: 0 } };
  return { overlap: 'skip', maxInstances, slot: { mode: 'skip', cap: maxInstances } };
}

/** Whether a stored `slot` has the rule's shape (a job or row written by this release). */
export function isSlotRule(v: unknown): v is SlotRule {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Partial<SlotRule>;
  return (
    SLOT_MODES.includes(r.mode as SlotRule['mode']) &&
    typeof r.cap === 'number' &&
    Number.isInteger(r.cap) &&
    r.cap >= 0
  );
}
