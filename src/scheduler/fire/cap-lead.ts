/**
 * How long this replica's adds of capped occurrences take to land, so that the fire-rate budget
 * (`maxFiresPerSecond`, `fire-budget-1`) gives no occurrence a slot its add cannot reach. A job that
 * lands after its slot becomes runnable when it lands, in a later second that the budget counted for
 * other fires: an aligned burst's first second, added with the burst's thousands of delayed jobs,
 * landed in the next second and doubled it.
 *
 * The lead grows with the jobs this replica has on their way (this add's and those still in flight):
 * `FIXED_MS + MARGIN * perJobMs * jobs`, at most `MAX_LEAD_MS`; `perJobMs` is learnt from the adds of
 * at least `LEARN_FROM` jobs (an exponential mean of the time each took per job in flight).
 */
export class CapLead {
  #perJobMs = INITIAL_PER_JOB_MS;
  #inFlight = 0;

  /**
   * Jobs about to be added at `now` (ms): the lead to ask the budget for, and a call for when they
   * landed (`at`), or failed (no time: nothing learnt).
   */
  take(jobs: number, now: number): { leadMs: number; landed(at?: number): void } {
    this.#inFlight += jobs;
    const onTheirWay = this.#inFlight;
    const leadMs = Math.min(MAX_LEAD_MS, Math.ceil(FIXED_MS + MARGIN * this.#perJobMs * onTheirWay));
    let done = false;
    return {
      leadMs,
      landed: (at?: number) => {
        if (done) return;
        done = true;
        this.#inFlight -= jobs;
        if (at === undefined || onTheirWay < LEARN_FROM) return;
        const sample = Math.max(0, at - now - FIXED_MS) / onTheirWay;
        this.#perJobMs = Math.min(MAX_PER_JOB_MS, 0.7 * this.#perJobMs + 0.3 * sample);
      },
    };
  }
}

/** The least lead (ms): a round trip and a script's run. */
const FIXED_MS = 10;
/** The lead over the time expected: adds slow down when Redis or this process is loaded. */
const MARGIN = 2;
/** The time per job in flight (ms) assumed before any add was measured (an aligned burst's first). */
const INITIAL_PER_JOB_MS = 0.5;
const MAX_PER_JOB_MS = 5;
/** The longest lead (ms): a longer add lands late, as an uncapped one would. */
const MAX_LEAD_MS = 5000;
/** Adds of fewer jobs on their way teach nothing about the time per job (the fixed part dominates). */
const LEARN_FROM = 100;
