// Reads the service's configuration from the environment, once, into one typed object.
// The variables and defaults are the ones listed in the README configuration table.

import os from 'node:os';
import { parseFxRates, type FxRates } from './money/fx-rates.js';

/**
 * META_GRAPH_URL's default: the newest Graph version a vendored, generated source describes (Meta's
 * Java SDK @a73f92d, APIConfig.DEFAULT_API_VERSION "v26.0"; the version table is platforms/meta/versions.ts).
 */
export const DEFAULT_META_GRAPH_URL = 'https://graph.facebook.com/v26.0';
import { DEFAULT_TOOLSETS, parseToolsets, type Toolset } from './toolsets.js';

export type PlatformMode = 'sandbox' | 'live';

export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  baseUrl: string;
  mcpUrl: string;
  platformMode: PlatformMode;
  redisUrl: string | null;
  rateLimitPerMinute: number;
  rateLimitConcurrency: number;
  logLevel: string;
  requestTimeoutMs: number;
  /** How long a verified API key may be served from memory; revocation takes effect within it. */
  keyCacheMs: number;
  /** Seconds live reads from ad platforms are cached (METRICS_CACHE_SECONDS). */
  metricsCacheSeconds: number;
  /** Versioned base URLs of the live platform APIs. */
  metaGraphUrl: string;
  tiktokApiUrl: string;
  /** When true, an operation answer that breaks its output schema is an error (tests), not a log line. */
  strictOutput: boolean;
  /** Folder holding uploaded creative files, named by their sha256 (CREATIVES_DIR). */
  creativesDir: string;
  /** WEBHOOKS_ENABLED=false: webhook operations answer 503 webhooks_unavailable and nothing is delivered. */
  webhooksEnabled: boolean;
  /**
   * WEBHOOK_ALLOW_PRIVATE=true: caller-given URLs (webhook endpoints, tracker baseUrl, chat step
   * webhookUrl) may use http:// and loopback, private or unique-local addresses (development, tests).
   */
  webhookAllowPrivate: boolean;
  /**
   * WEBHOOK_WINDOW: deliveries of one endpoint sent but not yet recorded; a crash may send those
   * again (same webhook-id), so 1 means an answered message is never sent twice.
   */
  webhookWindow: number;
  /**
   * WEBHOOK_INFLIGHT: requests in flight to one endpoint at once (its window; it shrinks while the
   * endpoint fails or slows and grows back as it answers). 1: one message at a time, in order.
   */
  webhookInflight: number;
  /** JOBS=off: this process serves requests but runs no job. */
  jobsEnabled: boolean;
  /**
   * DELIVERY_THREAD=on (default): with JOBS=on, `svc-server serve` runs the webhook deliveries (and
   * the fan-out of events into them) on a worker thread of its own, with its own database
   * connection and HTTP client, so they never wait for the event loop that serves requests.
   */
  deliveryThread: boolean;
  /**
   * DELIVERY_THREADS: how many delivery threads share the endpoints' lanes (an endpoint's lane is
   * always claimed by the same thread: endpoint id modulo this count); default one per core beside
   * the one that serves requests (cores - 1), at least 1 and at most 4: on two cores a second delivery
   * thread only took turns with the first and the request loop, and delivered less (docs/benchmarks.md).
   */
  deliveryThreads: number;
  /** How long a claimed job is held before another process may take it over (renewed while it runs). */
  jobLeaseMs: number;
  /** Jobs one process runs at once. */
  jobConcurrency: number;
  /** How long a running request holds its Idempotency-Key before a retry with it may take the work over (IDEMPOTENCY_LEASE_MS). */
  idempotencyLeaseMs: number;
  /**
   * How long a publish carried on past its request (by the finish-publish job) may take before it is
   * ended: rolled back, or given up with what is left on the platform paused and named (PUBLISH_DEADLINE_MS).
   */
  publishDeadlineMs: number;
  /** Failed tries of the finish-publish job after which the publish is ended the same way (PUBLISH_MAX_RETRIES). */
  publishMaxRetries: number;
  /** Slack-compatible incoming webhook that workflow chat steps post to unless a step names its own (CHAT_WEBHOOK_URL). */
  chatWebhookUrl: string | null;
  /** OpenAI-compatible base URL of the model behind workflow agent steps (AGENT_MODEL_URL); unset: no agent steps. */
  agentModelUrl: string | null;
  agentModel: string;
  agentModelApiKey: string | null;
  /** Model turns an agent step may take (AGENT_MAX_STEPS). */
  agentMaxSteps: number;
  /** Time an agent step may take in all: every model request, the SDK's retries and the job's retries (AGENT_TIMEOUT_MS). */
  agentTimeoutMs: number;
  /** Base URL of an OpenAI-compatible chat completions API for ad copy; null = the built-in template generator. */
  copyModelUrl: string | null;
  copyModel: string | null;
  copyModelApiKey: string | null;
  /** Time one copy generation may take in all: model requests, the SDK's retries and regenerations (COPY_MODEL_TIMEOUT_MS). */
  copyModelTimeoutMs: number;
  /** MCP_TOOLSETS: the toolsets the MCP server lists when a client names none (default: the toolsets marked default). */
  mcpToolsets: Toolset[];
  /** MCP_READ_ONLY=true: the MCP server lists and runs only read-only tools, whatever a client asks. */
  mcpReadOnly: boolean;
  /** MCP_CONFIRM_TIMEOUT_S: how long an MCP confirmation question waits for the person (under the SDK clients' 60 s request timeout). */
  mcpConfirmTimeoutS: number;
  /** APPROVAL_TTL_HOURS: how long an approval waits for a person before it expires and moves nothing (hours; decimals allowed). */
  approvalTtlHours: number;
  /** Retries of a copy model request that failed or answered 429 or 5xx, within COPY_MODEL_TIMEOUT_MS (COPY_MODEL_MAX_RETRIES). */
  copyModelMaxRetries: number;
  /** FX_RATES: US dollars per unit of each currency other than USD, as written; what amounts count against ceilings at. */
  fxRates: FxRates;
  /** METRICS_TOKEN: the bearer token GET /metrics asks for; null = no metrics endpoint (and prom-client is not loaded). */
  metricsToken: string | null;
  /** OTEL_EXPORTER_OTLP_ENDPOINT: the OTLP/HTTP collector traces go to; null = no tracing code is loaded. */
  otelEndpoint: string | null;
  /** SHUTDOWN_GRACE_MS: how long a stopping process lets running jobs finish before releasing them. */
  shutdownGraceMs: number;
}

function flag(env: NodeJS.ProcessEnv, name: string, fallback: boolean, on = 'true', off = 'false'): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === on) return true;
  if (raw === off) return false;
  throw new Error(`${name} must be "${on}" or "${off}"; got "${raw}"`);
}

function intFrom(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    throw new Error(`${name} must be a whole number of at least ${min}; got "${raw}"`);
  }
  return value;
}

/** The highest TCP port. */
const MAX_PORT = 65_535;

function portFrom(env: NodeJS.ProcessEnv): number {
  const port = intFrom(env, 'PORT', 8080, 0);
  if (port > MAX_PORT) throw new Error(`PORT must be a port number from 0 to ${MAX_PORT} (0 picks a free one); got "${env.PORT}"`);
  return port;
}

/** An http or https address from `name` (trailing slashes dropped), or `fallback` when unset. */
function urlFrom(env: NodeJS.ProcessEnv, name: string, fallback: string): string;
function urlFrom(env: NodeJS.ProcessEnv, name: string, fallback: null): string | null;
function urlFrom(env: NodeJS.ProcessEnv, name: string, fallback: string | null): string | null {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback === null ? null : fallback.replace(/\/+$/, '');
  const parsed = URL.canParse(raw) ? new URL(raw) : null;
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || !parsed.hostname)
    throw new Error(`${name} must be an absolute http or https URL such as https://ads.example.com; got "${raw}"`);
  return raw.replace(/\/+$/, '');
}

/** pino's levels, and `silent`. */
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function logLevelFrom(env: NodeJS.ProcessEnv): string {
  const raw = env.LOG_LEVEL;
  if (raw === undefined || raw === '') return 'info';
  if (!LOG_LEVELS.includes(raw)) throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}; got "${raw}"`);
  return raw;
}

function positiveNumberFrom(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a number above 0; got "${raw}"`);
  return value;
}

function toolsetsFrom(env: NodeJS.ProcessEnv): Toolset[] {
  try {
    return [...(parseToolsets(env.MCP_TOOLSETS) ?? parseToolsets(DEFAULT_TOOLSETS)!)];
  } catch (err) {
    throw new Error(`MCP_TOOLSETS: ${(err as Error).message}`, { cause: err });
  }
}

/**
 * TOKEN_ENCRYPTION_KEY (32 bytes, base64) that seals ad platforms' access tokens, or null. Read on
 * its own, not through loadConfig: bootstrap and the token box need it without a whole configuration.
 */
export function tokenEncryptionKey(env: NodeJS.ProcessEnv = process.env): string | null {
  return env.TOKEN_ENCRYPTION_KEY || null;
}

/** What is wrong with TOKEN_ENCRYPTION_KEY's form (not 32 bytes of base64), in one sentence, or null when unset or well formed. */
export function tokenEncryptionKeyProblem(env: NodeJS.ProcessEnv = process.env): string | null {
  const raw = tokenEncryptionKey(env);
  if (raw === null) return null;
  const fix = 'make one with `openssl rand -base64 32`, or set the key your stored tokens were sealed with';
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(raw.trim()) || raw.trim().length % 4 !== 0)
    return `TOKEN_ENCRYPTION_KEY is not base64 (it must be 32 bytes, base64-encoded): ${fix}`;
  const bytes = Buffer.from(raw, 'base64').length;
  if (bytes !== 32) return `TOKEN_ENCRYPTION_KEY holds ${bytes} bytes; it must be 32 bytes, base64-encoded: ${fix}`;
  return null;
}

/** Builds the configuration from environment variables, failing with a message that names the bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = portFrom(env);
  const host = env.HOST || '127.0.0.1';
  const baseUrl = urlFrom(env, 'BASE_URL', `http://localhost:${port}`);
  const platformMode = (env.PLATFORM_MODE || 'sandbox') as PlatformMode;
  if (platformMode !== 'sandbox' && platformMode !== 'live') {
    throw new Error(`PLATFORM_MODE must be "sandbox" or "live"; got "${env.PLATFORM_MODE}"`);
  }
  const keyProblem = tokenEncryptionKeyProblem(env);
  if (keyProblem) throw new Error(keyProblem);
  const copyModelUrl = urlFrom(env, 'COPY_MODEL_URL', null);
  if (copyModelUrl && !env.COPY_MODEL) throw new Error('COPY_MODEL must name the model to ask when COPY_MODEL_URL is set');
  return {
    port,
    host,
    databaseUrl: env.DATABASE_URL || 'sqlite:./data/svc.sqlite',
    baseUrl,
    mcpUrl: urlFrom(env, 'MCP_URL', `${baseUrl}/mcp`),
    platformMode,
    redisUrl: env.REDIS_URL || null,
    rateLimitPerMinute: intFrom(env, 'RATE_LIMIT_PER_MINUTE', 600, 1),
    rateLimitConcurrency: intFrom(env, 'RATE_LIMIT_CONCURRENCY', 20, 1),
    logLevel: logLevelFrom(env),
    requestTimeoutMs: intFrom(env, 'REQUEST_TIMEOUT_MS', 30_000, 1),
    keyCacheMs: intFrom(env, 'KEY_CACHE_MS', 2_000, 0),
    strictOutput: env.SVC_STRICT_OUTPUT === 'true',
    metricsCacheSeconds: intFrom(env, 'METRICS_CACHE_SECONDS', 60, 0),
    metaGraphUrl: urlFrom(env, 'META_GRAPH_URL', DEFAULT_META_GRAPH_URL),
    tiktokApiUrl: urlFrom(env, 'TIKTOK_API_URL', 'https://business-api.tiktok.com/open_api/v1.3'),
    creativesDir: env.CREATIVES_DIR || './data/creatives',
    webhooksEnabled: flag(env, 'WEBHOOKS_ENABLED', true),
    webhookAllowPrivate: flag(env, 'WEBHOOK_ALLOW_PRIVATE', false),
    webhookWindow: intFrom(env, 'WEBHOOK_WINDOW', 8, 1),
    webhookInflight: intFrom(env, 'WEBHOOK_INFLIGHT', 8, 1),
    jobsEnabled: flag(env, 'JOBS', true, 'on', 'off'),
    deliveryThread: flag(env, 'DELIVERY_THREAD', true, 'on', 'off'),
    deliveryThreads: intFrom(env, 'DELIVERY_THREADS', Math.min(4, Math.max(1, os.availableParallelism() - 1)), 1),
    jobLeaseMs: intFrom(env, 'JOB_LEASE_MS', 30_000, 500),
    jobConcurrency: intFrom(env, 'JOB_CONCURRENCY', 20, 1),
    idempotencyLeaseMs: intFrom(env, 'IDEMPOTENCY_LEASE_MS', 120_000, 500),
    publishDeadlineMs: intFrom(env, 'PUBLISH_DEADLINE_MS', 600_000, 1000),
    publishMaxRetries: intFrom(env, 'PUBLISH_MAX_RETRIES', 30, 1),
    // Checked like the others, kept as written (a webhook's trailing slash may matter).
    chatWebhookUrl: urlFrom(env, 'CHAT_WEBHOOK_URL', null) === null ? null : env.CHAT_WEBHOOK_URL!,
    agentModelUrl: urlFrom(env, 'AGENT_MODEL_URL', null),
    agentModel: env.AGENT_MODEL || 'gpt-4o-mini',
    agentModelApiKey: env.AGENT_MODEL_API_KEY || null,
    agentMaxSteps: intFrom(env, 'AGENT_MAX_STEPS', 8, 1),
    agentTimeoutMs: intFrom(env, 'AGENT_TIMEOUT_MS', 120_000, 1000),
    copyModelUrl,
    copyModel: env.COPY_MODEL || null,
    copyModelApiKey: env.COPY_MODEL_API_KEY || null,
    copyModelTimeoutMs: intFrom(env, 'COPY_MODEL_TIMEOUT_MS', 8_000, 100),
    copyModelMaxRetries: intFrom(env, 'COPY_MODEL_MAX_RETRIES', 2, 0),
    fxRates: parseFxRates(env.FX_RATES),
    mcpToolsets: toolsetsFrom(env),
    mcpReadOnly: flag(env, 'MCP_READ_ONLY', false),
    mcpConfirmTimeoutS: intFrom(env, 'MCP_CONFIRM_TIMEOUT_S', 50, 1),
    approvalTtlHours: positiveNumberFrom(env, 'APPROVAL_TTL_HOURS', 72),
    metricsToken: env.METRICS_TOKEN || null,
    otelEndpoint: urlFrom(env, 'OTEL_EXPORTER_OTLP_ENDPOINT', null),
    shutdownGraceMs: intFrom(env, 'SHUTDOWN_GRACE_MS', 10_000, 0),
  };
}
