// What a call of the pipeline takes and answers: shared by the pipeline, the operation context
// (handlers that invoke other operations) and the job services, without importing the pipeline.

import type { Logger } from 'pino';
import type { RateLimitInfo } from './rate-limit.js';

export interface InvokeMeta {
  /** Set as soon as the request is counted, so surfaces can send RateLimit-* headers even on errors. */
  rateLimit?: RateLimitInfo;
  replayed?: boolean;
}

export interface InvokeOptions {
  requestId: string;
  idempotencyKey?: string | null;
  meta?: InvokeMeta;
  log?: Logger;
}

export interface InvokeResult {
  status: number;
  body: unknown;
  replayed: boolean;
}
