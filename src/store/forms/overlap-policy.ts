/**
 * What a run does when another run of its schedule is still going (Temporal's `ScheduleOverlapPolicy`
 * set): `skip` it (recorded `skipped`, reason `overlap`), `bufferOne` (start it when the running one
 * ends; at most one waits, later ones are skipped, reason `buffer-full`), `bufferAll` (each waits, in
 * fire-time order), `cancelOther` (the running one is cancelled through its signal, this one starts
 * when it has stopped) or `allowAll` (no limit, and no lease taken).
 */
export const OVERLAP_POLICIES = ['skip', 'bufferOne', 'bufferAll', 'cancelOther', 'allowAll'] as const;
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number];

/** How the run slot is asked for: `none` takes no lease; `skip` allows `cap` live runs. */
export interface SlotRule {
  mode: 'none' | Exclude<OverlapPolicy, 'allowAll'>;
  cap: number;
}

/**
 * The slot rule of a job's run options. `overlap`, when set, decides (`skip` allows `maxInstances`
 * runs, at least 1; the others one at a time). Without it, `maxInstances` and `coalesce` keep their
 * meaning: `coalesce` → `skip` with one run at a time; `maxInstances: 0` → `allowAll`;
 * `maxInstances: N` → `skip` with N at a time.
 */
export function slotRule(run: {
  maxInstances: number;
  coalesce: boolean;
  overlap?: OverlapPolicy;
}): SlotRule {
  const overlap = run.overlap ?? (run.coalesce ? 'skip' : run.maxInstances === 0 ? 'allowAll' : 'skip');
  if (overlap === 'allowAll') return { mode: 'none', cap: 0 };
  if (overlap === 'skip')
    return { mode: 'skip', cap: run.coalesce && !run.overlap ? 1 : Math.max(1, run.maxInstances) };
  return { mode: overlap, cap: 1 };
}
