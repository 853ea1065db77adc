/**
 * How a `CompoundTrigger` combines its children (Sillo's names and values).
 * - `OR`: fires at the earliest child time (the union of the schedules).
 * - `AND`: fires at the earliest instant at which every child is due (their intersection).
 */
export const CompoundLogic = { AND: 'and', OR: 'or' } as const;

export type CompoundLogic = (typeof CompoundLogic)[keyof typeof CompoundLogic];
