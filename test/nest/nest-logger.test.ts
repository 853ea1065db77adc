import 'reflect-metadata';
import { type INestApplicationContext, type LoggerService, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { afterEach, describe, expect, it } from 'vitest';
import { BullbeatModule } from '../../nest/index.js';
import { forwardToNest } from '../../nest/nest-logger.js';
import { REDIS_URL, testEnv } from '../scheduler/helpers.js';
import { AppLabel, CallLog, Heartbeat } from './nest-app.js';

/** A Nest LoggerService that keeps every call: [method, message, ...rest]. */
function capturingLogger(): LoggerService & { calls: unknown[][] } {
  const calls: unknown[][] = [];
  const keep =
    (method: string) =>
    (...args: unknown[]) =>
      void calls.push([method, ...args]);
  return {
    calls,
    log: keep('log'),
    error: keep('error'),
    warn: keep('warn'),
    debug: keep('debug'),
    verbose: keep('verbose'),
    fatal: keep('fatal'),
  };
}

let env: ReturnType<typeof testEnv> | undefined;
let app: INestApplicationContext | undefined;

afterEach(async () => {
  await app?.close();
  app = undefined;
  await env?.cleanup();
  env = undefined;
});

describe("bullbeat/nest logs through Nest's logger", () => {
  it("without a logger option, bullbeat's lines reach the application's logger, context bullbeat", async () => {
    env = testEnv('nest-logger');
    const logger = capturingLogger();
    @Module({
      imports: [
        BullbeatModule.forRoot({ connection: REDIS_URL, prefix: env.prefix, defaultQueue: env.queue }),
      ],
      providers: [{ provide: AppLabel, useValue: new AppLabel('a') }, CallLog, Heartbeat],
    })
    class AppModule {}
    app = await NestFactory.createApplicationContext(AppModule, { logger, abortOnError: false });
    const started = logger.calls.find((c) => String(c[1]).startsWith('bullbeat/nest: started'));
    expect(started?.[0]).toBe('log');
    expect(started?.[1]).toContain('"schedules":["Heartbeat.beat"]');
    expect(started?.[2]).toBe('bullbeat');
    await app.close();
    app = undefined;
    expect(logger.calls.some((c) => c[1] === 'bullbeat: scheduler stopped' && c[2] === 'bullbeat')).toBe(
      true,
    );
  });

  it("maps pino's levels to Nest's methods; an error's stack goes where Nest prints stacks", () => {
    const logger = capturingLogger();
    forwardToNest(logger, `${JSON.stringify({ level: 30, msg: 'hello', scheduleId: 'a' })}\n`);
    forwardToNest(logger, JSON.stringify({ level: 20, msg: 'detail' }));
    forwardToNest(logger, JSON.stringify({ level: 40, msg: 'late' }));
    forwardToNest(
      logger,
      JSON.stringify({ level: 50, msg: 'failed', err: { message: 'boom', stack: 'Error: boom\n  at x' } }),
    );
    forwardToNest(logger, JSON.stringify({ level: 60, msg: 'fatal' }));
    forwardToNest(logger, 'not json\n');
    expect(logger.calls).toEqual([
      ['log', 'hello {"scheduleId":"a"}'],
      ['debug', 'detail'],
      ['warn', 'late'],
      ['error', 'failed', 'Error: boom\n  at x'],
      ['error', 'fatal', undefined],
      ['log', 'not json'],
    ]);
  });
});
