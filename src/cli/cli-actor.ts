import { hostname, userInfo } from 'node:os';
import type { ChangeOptions } from '../scheduler/index.js';

/** Who changes a schedule from this CLI, for its audit trail and pause notes: `cli:<user>@<host>`. */
export function cliUser(): string {
  let user = 'unknown';
  try {
    user = userInfo().username;
  } catch {
    // no user name on this system
  }
  return `cli:${user}@${hostname()}`;
}

/** The change options of every CLI change: this OS user and host, via `cli`. */
export function cliChange(): Required<Pick<ChangeOptions, 'by' | 'via'>> {
  return { by: cliUser(), via: 'cli' };
}
