import type { Command } from 'commander';
import { parseHeartbeat, parseNotifiers } from '../scheduler/index.js';
import type { CliIO } from './cli-io.js';
import type { CommandContext } from './command-context.js';

/** The alert flags of `scheduler` and `dev` (`--notifier` alone: `worker` and `dashboard`). */
export interface AlertFlags {
  notifier?: string[];
  heartbeatUrl?: string;
  heartbeatEvery?: string;
}

/**
 * Check the operator's alert settings (`--notifier`, repeatable, else `BULLBEAT_NOTIFIERS`;
 * `--heartbeat-url` / `--heartbeat-every`, else `BULLBEAT_HEARTBEAT_URL` / `_EVERY`), each error naming
 * the flag or variable it came from, then hand them to the managers the command makes (their
 * environment): a flag wins over its variable.
 */
export function applyAlertFlags(ctx: CommandContext, io: CliIO): void {
  const flags = ctx.sources.flags as AlertFlags;
  const env = io.env;
  if (flags.notifier?.length) {
    parseNotifiers(flags.notifier, '--notifier');
    env.BULLBEAT_NOTIFIERS = flags.notifier.join('\n');
  } else {
    parseNotifiers([env.BULLBEAT_NOTIFIERS ?? ''], 'BULLBEAT_NOTIFIERS');
  }
  const url = flags.heartbeatUrl ?? env.BULLBEAT_HEARTBEAT_URL;
  const every = flags.heartbeatEvery ?? env.BULLBEAT_HEARTBEAT_EVERY;
  parseHeartbeat(url, every, {
    url: flags.heartbeatUrl !== undefined ? '--heartbeat-url' : 'BULLBEAT_HEARTBEAT_URL',
    every: flags.heartbeatEvery !== undefined ? '--heartbeat-every' : 'BULLBEAT_HEARTBEAT_EVERY',
  });
  if (url !== undefined) env.BULLBEAT_HEARTBEAT_URL = url;
  if (every !== undefined) env.BULLBEAT_HEARTBEAT_EVERY = every;
}

/**
 * `--notifier` (repeatable) alone: a `worker` and the `dashboard` deliver incidents too (with every
 * scheduler replica down, they are what open and tell them), but keep no heartbeat.
 */
export function withNotifierOption(cmd: Command): Command {
  return cmd.option(
    '--notifier <name=kind:target>',
    'a notifier for incidents, repeatable: ops=webhook:https://…[;secret=…], chat=slack:https://…, pd=pagerduty:<routing key>[;url=…] (env BULLBEAT_NOTIFIERS, one per line)',
    (v: string, all: string[] = []) => [...all, v],
  );
}

/** The operator's alert flags (notifiers, heartbeat: docs/being-told.md) of `scheduler` and `dev`. */
export function withAlertOptions(cmd: Command): Command {
  return withNotifierOption(cmd)
    .option(
      '--heartbeat-url <url>',
      "dead man's switch: one live replica GETs this URL every period (env BULLBEAT_HEARTBEAT_URL)",
    )
    .option(
      '--heartbeat-every <duration>',
      'the heartbeat period, e.g. 30s (env BULLBEAT_HEARTBEAT_EVERY; default 30s)',
    );
}
