import type { WorkerScheduler } from './worker-scheduler.js';

/**
 * The queues a worker serves unless told otherwise: those where this process can run at least one
 * job name. That is the queue of every handler registered in code, plus the queue of every stored
 * schedule (a runtime one, say) whose job name has a handler here. A queue whose jobs no local
 * handler runs belongs to another consumer (a plain BullMQ worker, another service): bullbeat
 * leaves it alone rather than failing its jobs with "no handler". Sorted, without duplicates.
 */
export async function handledQueues(scheduler: WorkerScheduler): Promise<string[]> {
  const queues = new Set<string>();
  for (const name of scheduler.handlerNames()) {
    const queue = scheduler.handlerFor(name)?.job.queue;
    if (queue) queues.add(queue);
  }
  for (const schedule of (await scheduler.list?.()) ?? []) {
    if (scheduler.handlerFor(schedule.name)) queues.add(schedule.queue);
  }
  return [...queues].sort();
}

/**
 * Per queue of `queues` (those a worker consumes), the job names it handles there: each handler's own
 * queue (its code schedule's, or the one given to `handle()`), and the queue of every stored schedule
 * whose job name has a handler here. What the fleet registry shows under each queue, rather than
 * every handler under every queue. A consumed queue where none lands is listed with no name.
 */
export async function handledPairs(
  scheduler: WorkerScheduler,
  queues: readonly string[],
): Promise<Record<string, string[]>> {
  const pairs = new Map<string, Set<string>>(queues.map((q) => [q, new Set()]));
  const add = (queue: string | undefined, name: string) => pairs.get(queue ?? '')?.add(name);
  for (const name of scheduler.handlerNames()) add(scheduler.handlerFor(name)?.job.queue, name);
  for (const schedule of (await scheduler.list?.()) ?? []) {
    if (scheduler.handlerFor(schedule.name)) add(schedule.queue, schedule.name);
  }
  return Object.fromEntries([...pairs].map(([q, names]) => [q, [...names].sort()]));
}
