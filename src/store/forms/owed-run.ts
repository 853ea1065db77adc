/**
 * An occurrence taken into a schedule's ledger by a backfill or a resume's catch-up and owed until it
 * is enqueued (the `owed-runs` set of its partition). Its member is
 * `<fireAt>|<lane>|<overlap>|<coalesced>|<id>` (`lane` b: backfill, c: catch-up); the Lua side
 * (`includes/ledger.lua`'s callers) builds the same string, and this is its one codec in TypeScript.
 * The id comes last: it may hold `|`.
 */
export interface OwedRun {
  scheduleId: string;
  fireAt: number;
  lane: 'backfill' | 'catch-up';
  /** How the run treats another run of the schedule still going. */
  overlap: OwedOverlap;
  /** Under resume's `once`: how many missed occurrences the run stands for. */
  coalesced?: number;
}

/**
 * `bufferAll`: the taken runs go one after another, in fire-time order, each waiting for any run of the
 * schedule still going; `allowAll`: no cap (a backfill's `overlap: 'allowAll'`).
 */
export type OwedOverlap = 'bufferAll' | 'allowAll';

export function owedMember(r: OwedRun): string {
  const lane = r.lane === 'backfill' ? 'b' : 'c';
  return `${r.fireAt}|${lane}|${r.overlap}|${r.coalesced ?? ''}|${r.scheduleId}`;
}

/** The member's occurrence, or undefined when it is not one (never thrown). */
export function parseOwedMember(member: string): OwedRun | undefined {
  const m = /^(\d+)\|([bc])\|(bufferAll|allowAll)\|(\d*)\|(.+)$/s.exec(member);
  if (!m) return undefined;
  return {
    scheduleId: m[5] as string,
    fireAt: Number(m[1]),
    lane: m[2] === 'b' ? 'backfill' : 'catch-up',
    overlap: m[3] as OwedOverlap,
    ...(m[4] !== '' && { coalesced: Number(m[4]) }),
  };
}
