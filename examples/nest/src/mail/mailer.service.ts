import { Injectable, Logger } from '@nestjs/common';

/** Stands for the application's own services: the scheduled method gets it from Nest's container. */
@Injectable()
export class Mailer {
  private readonly logger = new Logger(Mailer.name);

  async send(to: string, subject: string): Promise<void> {
    this.logger.log(`to ${to}: ${subject}`);
  }
}
