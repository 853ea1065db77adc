import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module.js';

async function bootstrap() {
  // A standalone application (no HTTP): bullbeat needs none. In an HTTP application,
  // `NestFactory.create(AppModule)` and `app.listen()` work the same way.
  const app = await NestFactory.createApplicationContext(AppModule);
  // SIGTERM / SIGINT close the application: the scheduler stops claiming, the worker lets its
  // running jobs finish, then the process exits.
  app.enableShutdownHooks();
}
void bootstrap();
