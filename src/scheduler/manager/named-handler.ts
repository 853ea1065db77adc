import type pino from 'pino';
import {
  composePipeline,
  inProcessRunContext,
  type Middleware,
  type RunContext,
} from '../../queue/pipeline.js';

/**
 * A worker handler registered by job name with `handle(name, fn)`: no schedule of its own. Runtime
 * schedules made by the API, the CLI or the dashboard (`{ queue, name }` targets) run through it.
 * Its `id` is its name (what middleware sees as the schedule when a job carries no schedule id).
 */
export class NamedHandler {
  constructor(
    readonly name: string,
    readonly queue: string,
    readonly fn: (...args: never[]) => unknown,
    readonly middleware: readonly Middleware[],
    private readonly logger: () => pino.Logger,
  ) {}

  get id(): string {
    return this.name;
  }

  /** Run the handler now, in this process, under its middleware (no queue involved), as `ScheduledJob.run()`. */
  async run(ctx: Partial<RunContext> = {}): Promise<unknown> {
    const handler = await composePipeline(this.fn as (...a: unknown[]) => unknown, [], this.middleware, {
      id: this.id,
      name: this.name,
    });
    return handler(inProcessRunContext(this.id, this.name, this.logger().child({ jobName: this.name }), ctx));
  }
}
