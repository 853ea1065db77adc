// A CPU profile of this process over a stretch of a bench (the inspector's profiler), written as a
// .cpuprofile (Chrome DevTools, or any .cpuprofile reader): bench/run.ts profiles each drain,
// bench/fire-scheduler.ts its measured window (`WINDOW_PROFILE`).
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { dirname } from 'node:path';

/** Start profiling this process. */
export async function startProfile(): Promise<Session> {
  const session = new Session();
  session.connect();
  const post = (method: string) =>
    new Promise<void>((ok, fail) => session.post(method, (err) => (err ? fail(err) : ok())));
  await post('Profiler.enable');
  await post('Profiler.start');
  return session;
}

/** Stop the profile `startProfile` began and write it to `file` (its folder made if needed). */
export async function stopProfile(session: Session, file: string): Promise<void> {
  const profile = await new Promise<unknown>((ok, fail) =>
    session.post('Profiler.stop', (err, res) => (err ? fail(err) : ok(res.profile))),
  );
  session.disconnect();
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(profile));
}
