// What a call of the pipeline takes and answers: shared by the pipeline, the operation context
// (handlers that invoke other operations) and the job services, without importing the pipeline.

import type { Logger } from 'pino';

/** The caller's rate limit window, as the RateLimit-* headers report it (pipeline/rate-limit.ts counts it). */
export interface RateLimitInfo {
  limit: number;
  remaining: number;
  /** Seconds until the current window resets. */
  resetSeconds: number;
}

export interface InvokeMeta {
  /** Set as soon as the request is counted, so surfaces can send RateLimit-* headers even on errors. */
  rateLimit?: RateLimitInfo;
  replayed?: boolean;
}

/** One step of a long operation's progress: `progress` grows; `total` when it is known. */
export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

/**
 * The file part of an upload, streamed by the surface that received it to the creatives storage's
 * staging area (creatives/staging.ts): hashed and its head checked as it arrived. The operation that
 * declares `upload` reads it as `ctx.upload` instead of the part's bytes in its input.
 */
export interface StagedUpload {
  /** The input field it stands for (the operation's `upload.field`). */
  field: string;
  path: string;
  size: number;
  sha256: string;
  /** Its leading bytes (at most creatives/media.ts HEAD_BYTES). */
  head: Buffer;
  fileName: string;
}

export interface InvokeOptions {
  requestId: string;
  /**
   * Receives the progress a long operation reports (`ctx.progress`); surfaces that can show it
   * pass one (MCP `notifications/progress` when the call carries a progressToken).
   */
  onProgress?: (update: ProgressUpdate) => void;
  idempotencyKey?: string | null;
  meta?: InvokeMeta;
  log?: Logger;
  /**
   * Set by `ctx.invoke`: a call made by an operation within a request that was already counted
   * and holds an in-flight slot, so it is neither counted nor limited again.
   */
  nested?: boolean;
  /** Who asked, for the request metrics and spans: REST (`api`), MCP (`mcp`), the console (`console`), or a job (the default). */
  surface?: 'api' | 'mcp' | 'console' | 'job';
  /** A file part the surface streamed to storage, for an operation that declares `upload`. */
  upload?: StagedUpload;
}

export interface InvokeResult {
  status: number;
  body: unknown;
  replayed: boolean;
}

/**
 * What a handler answers instead of acting when the call is accepted but waits for someone (an
 * approval by a person): the pipeline answers 202 with `body`, shaped by the schema `output`.
 */
export class Accepted {
  constructor(
    readonly output: string,
    readonly body: Record<string, unknown>,
  ) {}
}
