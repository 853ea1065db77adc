import { OVERLAP_POLICIES, type OverlapPolicy } from './overlap-policy.js';

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
  /**
   * How the run treats another run of the schedule still going: a schedule's overlap policy, resolved
   * into the job's `run.slot` as a schedule's is (`owedRunOptions`).
   */
  overlap: OverlapPolicy;
  /** Under resume's `once`: how many missed occurrences the run stands for. */
  coalesced?: number;
}

const MEMBER = new RegExp(`^(\\d+)\\|([bc])\\|(${OVERLAP_POLICIES.join('|')})\\|(\\d*)\\|(.+)$`, 's');

export function owedMember(r: OwedRun): string {
  const lane = r.lane === 'backfill' ? 'b' : 'c';
  return `${r.fireAt}|${lane}|${r.overlap}|${r.coalesced ?? ''}|${r.scheduleId}`;
}

/** The member's occurrence, or undefined when it is not one (never thrown). */
export function parseOwedMember(member: string): OwedRun | undefined {
  const m = MEMBER.exec(member);
  if (!m) return undefined;
  return {
    scheduleId: m[5] as string,
    fireAt: Number(m[1]),
    lane: m[2] === 'b' ? 'backfill' : 'catch-up',
    overlap: m[3] as OverlapPolicy,
    ...(m[4] !== '' && { coalesced: Number(m[4]) }),
  };
}
