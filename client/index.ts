export * from './client.js';
export * from './errors.js';
export { TokenBucket, GroupLimiter } from './limiter.js';
export { sseData } from './sse.js';
