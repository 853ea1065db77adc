/** Base class of every error bullbeat throws on purpose; `instanceof BullbeatError` catches them all. */
export class BullbeatError extends Error {
  override name = 'BullbeatError';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
