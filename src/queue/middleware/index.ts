export { type RateLimitMiddlewareOptions, rateLimitMiddleware } from './rate-limit-middleware.js';
export { type RetryMiddlewareOptions, retryMiddleware } from './retry-middleware.js';
export { type TimeoutMiddlewareOptions, timeoutMiddleware } from './timeout-middleware.js';
