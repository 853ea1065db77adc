// agendaOf, the pure walk behind `bullbeat agenda`: counts and the busiest minute cover the whole
// window, not only the entries a limit keeps.
import { describe, expect, it } from 'vitest';
import { type AgendaSchedule, agendaOf } from '../../src/insight/agenda.js';
import { DateTrigger, IntervalTrigger } from '../../src/triggers/index.js';

const FROM = Date.UTC(2026, 0, 1, 0, 0, 0);
const HOUR = 3_600_000;

function schedule(id: string, trigger: AgendaSchedule['trigger'], next: number): AgendaSchedule {
  return { id, name: id, queue: 'q', trigger, next };
}

describe('agendaOf', () => {
  it('finds the busiest minute over the whole window, past the entries the limit keeps', () => {
    // one fire a minute all day; a burst of 5 at 20:00, long after the first 10 entries
    const burst = [0, 1, 2, 3, 4].map((i) =>
      schedule(`burst-${i}`, new DateTrigger(FROM + 20 * HOUR + i * 1000), FROM + 20 * HOUR + i * 1000),
    );
    const a = agendaOf(
      [schedule('tick', new IntervalTrigger(60), FROM), ...burst],
      FROM,
      FROM + 24 * HOUR,
      10,
    );
    expect(a.entries).toHaveLength(10);
    expect(a.truncated).toBe(true);
    expect(a.perQueue.q).toBe(24 * 60 + 1 + 5);
    expect(a.busiestMinute).toEqual({ at: FROM + 20 * HOUR, count: 6 });
  });

  it('a tie goes to the earliest minute; an empty window has no busiest minute', () => {
    const a = agendaOf([schedule('tick', new IntervalTrigger(60), FROM)], FROM, FROM + HOUR, 5);
    expect(a.busiestMinute).toEqual({ at: FROM, count: 1 });
    const none = agendaOf(
      [schedule('later', new DateTrigger(FROM + 2 * HOUR), FROM + 2 * HOUR)],
      FROM,
      FROM + HOUR,
    );
    expect(none.entries).toEqual([]);
    expect(none.busiestMinute).toBeUndefined();
    expect(none.truncated).toBe(false);
  });
});
