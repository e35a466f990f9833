// The composition root of the core: storage, schemas, catalogue, authentication and the pipeline.
// Surfaces hold one Service and call only `authenticate`, `invoke` and `catalogue`.

import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { Authenticator } from './access/authenticate.js';
import type { Principal, Surface } from './auth/principal.js';
import { Catalogue, type OperationDefinition } from './catalogue/define.js';
import { indexedOperations } from './wiring/operation-areas.js';
import type { Config } from './config.js';
import { openDatabase, pingDatabase, type Database } from './db/connection.js';
import { ensureSetting } from './db/settings.js';
import { createLogger } from './log.js';
import { CursorCodec } from './pagination/cursor.js';
import { invoke, type InvokeOptions, type InvokeResult, type PipelineDeps } from './pipeline/invoke.js';
import { withinBudget } from './pipeline/budget.js';
import { classifyFault } from './pipeline/faults.js';
import { MemoryRateLimiter, RedisRateLimiter, type RateLimiter } from './pipeline/rate-limit.js';
import { SchemaRegistry, loadSchemaFiles, type JsonSchema } from './schemas/registry.js';
import { Platforms, type LiveAdapterFactory } from './platforms/registry.js';
import { DEFAULT_GRAPH_VERSION, versionNotice, versionOfUrl } from './platforms/meta/versions.js';
import { MemoryMetricsCache, RedisMetricsCache } from './platforms/metrics-cache.js';
import { Directory } from './brands/directory.js';
import { SigningKeys } from './oauth/keys.js';
import type { OAuthSettings } from './oauth/flows.js';
import { loadSecretBox, type SecretBox } from './auth/encryption.js';
import { EventOutbox } from './events/outbox.js';
import { JobWorker } from './jobs/worker.js';
import { deliveryJobKinds, deliveryScope, jobKinds } from './wiring/job-kinds.js';
import { DeliveryThreads, type DeliveryThreadData } from './delivery-thread.js';
import type { ClaimScope } from './jobs/queue/claim.js';
import { adAccountReader } from './wiring/platforms.js';
// Installs the reference resolvers, which read the areas' stores.
import './wiring/references.js';
import { eventSubscribers } from './wiring/subscribers.js';
import type { JobKind } from './jobs/kind.js';
import { WebhookSender } from './webhooks/sender.js';
import { OutboundClient } from './outbound/client.js';
import type { Resolver } from './outbound/resolver.js';
import type { HookAnswer } from './workflows/hooks.js';
import { Trackers, realSleep } from './trackers/registry.js';
import { pendingMigrations } from './db/migrate.js';
import { readyJobsByKind } from './jobs/queue/stats.js';
import { enableMetrics, exposition, observeQueue } from './observability/metrics.js';
import { startTracing, stopTracing } from './observability/tracing.js';

/** One thing that keeps a process from taking traffic (GET /readyz). */
export interface NotReady {
  component: 'database' | 'migrations' | 'worker';
  message: string;
}

export interface ServiceOptions {
  config: Config;
  log?: Logger;
  /** Operations beyond the catalogue (tests register their own this way). */
  extraOperations?: OperationDefinition[];
  extraSchemas?: JsonSchema[];
  now?: () => number;
  /** Live ad-platform adapters (PLATFORM_MODE=live); tests point them at fake servers. */
  liveAdapters?: LiveAdapterFactory;
  /** Resolves the hosts of caller-given URLs (default: the system resolver); tests map names to addresses. */
  resolveHost?: Resolver;
  /** Job kinds beyond the built-in ones (tests register their own this way). */
  extraJobKinds?: JobKind[];
  /** Waits between tracker requests (default: a real timer); tests pass one that moves their fixed clock. */
  sleep?: (ms: number) => Promise<void>;
  /**
   * The delivery threads' start data (`svc-server serve` passes the environment it read): with
   * JOBS=on and DELIVERY_THREAD=on, `startJobs` starts DELIVERY_THREADS of them and this process's
   * worker leaves the webhook deliveries to them. Without it (tests, benchmarks that say otherwise)
   * deliveries run on this process's worker like every other job.
   */
  deliveryThread?: DeliveryThreadData;
  /** The database of DATABASE_URL already opened (and migrated) by the caller, which the service then owns and closes. */
  database?: Database;
  /** Set in a delivery thread: its worker claims only the webhook deliveries, and of the endpoints' lanes only its shard. */
  deliveriesOnly?: { count: number; index: number };
}

/** The live adapters of PLATFORM_MODE=live (the tests' own when they pass some); their modules load only in live mode. */
async function liveAdaptersOf(options: ServiceOptions, outbound: OutboundClient): Promise<LiveAdapterFactory | undefined> {
  if (options.liveAdapters) return options.liveAdapters;
  if (options.config.platformMode !== 'live') return undefined;
  return (await import('./platforms/live.js')).liveAdapters(options.config, outbound);
}

export class Service {
  /** Stops the metrics scrape reading the queue through this service's database. */
  private unobserveQueue: () => void = () => {};

  private constructor(
    readonly config: Config,
    readonly database: Database,
    readonly schemas: SchemaRegistry,
    readonly catalogue: Catalogue,
    readonly log: Logger,
    private readonly authenticator: Authenticator,
    private readonly deps: PipelineDeps,
    /** Keys that sign and verify OAuth access tokens. */
    readonly signingKeys: SigningKeys,
    /** Issuer and the two resources tokens are bound to. */
    readonly oauth: OAuthSettings,
    /** The event outbox: emits through a caller's transaction. */
    readonly events: EventOutbox,
    /** Runs due jobs of this process once started (JOBS=on). */
    readonly jobs: JobWorker,
    /** The one client that calls outside services. */
    readonly outbound: OutboundClient,
    /** The threads that run the webhook deliveries, when this process has them (DELIVERY_THREAD=on). */
    readonly deliveryThreads: DeliveryThreads | null,
  ) {}

  /** Opens storage (already migrated) and checks the catalogue; a bad catalogue entry throws here. */
  static async open(options: ServiceOptions): Promise<Service> {
    const { config } = options;
    const log = options.log ?? createLogger(config.logLevel);
    const now = options.now ?? Date.now;
    const schemas = new SchemaRegistry([...loadSchemaFiles(), ...(options.extraSchemas ?? [])]);
    // Each area's handlers load on the first call of one of its operations (src/catalogue/lazy.ts).
    const catalogue = new Catalogue(schemas, [...indexedOperations(), ...(options.extraOperations ?? [])]);
    // prom-client and the OpenTelemetry SDK are loaded only when their variables are set.
    if (config.metricsToken) await enableMetrics();
    if (config.otelEndpoint) await startTracing(config.otelEndpoint);
    const database = options.database ?? openDatabase(config.databaseUrl);
    const { knex } = database;
    try {
      const instanceId = await ensureSetting(knex, 'instance_id', () => crypto.randomUUID());
      const cursorSecret = await ensureSetting(knex, 'cursor_secret', () => crypto.randomBytes(32).toString('hex'));
      // Third-party secrets are sealed with TOKEN_ENCRYPTION_KEY, or else a key kept in the database.
      const secrets = await loadSecretBox(knex);
      // The worker exists before the outbox that wakes it; it starts claiming only when asked to.
      let worker: JobWorker | null = null;
      const threaded = !options.deliveriesOnly && options.deliveryThread !== undefined && config.jobsEnabled && config.deliveryThread;
      const deliveryThreads = threaded ? new DeliveryThreads(options.deliveryThread!, config.deliveryThreads, log) : null;
      const shard = options.deliveriesOnly;
      const scope: ClaimScope | undefined = shard
        ? // The fan-out of events into deliveries runs on thread 0 only; the lanes are split by endpoint id.
          { mode: 'only', lanePrefixes: deliveryScope.lanePrefixes, singles: shard.index === 0 ? deliveryScope.singles : [], shard }
        : deliveryThreads
          ? { mode: 'except', ...deliveryScope }
          : undefined;
      const nudge = () => {
        worker?.nudge();
        deliveryThreads?.nudge();
      };
      const events = new EventOutbox(knex, schemas, now, config.webhooksEnabled, nudge, eventSubscribers);
      const outbound = new OutboundClient({ allowPrivate: config.webhookAllowPrivate, resolve: options.resolveHost });
      const webhookSender = new WebhookSender(outbound);
      // ioredis is loaded only when REDIS_URL is set.
      const redis = config.redisUrl ? new (await import('ioredis')).Redis(config.redisUrl, { maxRetriesPerRequest: 2, enableOfflineQueue: true }) : null;
      const limiter: RateLimiter = redis
        ? new RedisRateLimiter(
            redis,
            `svc:${instanceId}:`,
            config.rateLimitPerMinute,
            config.rateLimitConcurrency,
            Math.max(config.requestTimeoutMs, config.idempotencyLeaseMs),
            now,
          )
        : new MemoryRateLimiter(config.rateLimitPerMinute, config.rateLimitConcurrency, now);
      const deps: PipelineDeps = {
        knex,
        config,
        catalogue,
        schemas,
        limiter,
        cursors: new CursorCodec(Buffer.from(cursorSecret, 'hex'), now),
        log,
        now,
        directory: new Directory(knex, config.keyCacheMs, now),
        platforms: new Platforms(config.platformMode, knex, now, await liveAdaptersOf(options, outbound), config.keyCacheMs, adAccountReader, {
          graphVersion: versionOfUrl(config.metaGraphUrl) ?? DEFAULT_GRAPH_VERSION,
          fxRates: config.fxRates,
        }),
        events,
        secrets,
        webhooks: webhookSender,
        outbound,
        trackers: new Trackers(knex, now, outbound, options.sleep ?? realSleep, Math.max(1_000, Math.floor(config.requestTimeoutMs / 2))),
        metrics: redis
          ? new RedisMetricsCache(redis, `svc:${instanceId}:`, config.metricsCacheSeconds * 1000)
          : new MemoryMetricsCache(config.metricsCacheSeconds * 1000, now),
      };
      const kinds = options.deliveriesOnly ? deliveryJobKinds : [...jobKinds, ...(options.extraJobKinds ?? [])];
      worker = new JobWorker({
        knex,
        config,
        log,
        now,
        kinds,
        services: {
          dialect: database.dialect,
          events,
          secrets,
          webhooks: webhookSender,
          outbound,
          // No request budget: nobody waits on a job, and its lease (renewed while it runs) bounds it instead.
          invoke: (name, principal, input, opts) => invoke(deps, name, principal, input, opts),
          platforms: deps.platforms,
          metrics: deps.metrics,
          directory: deps.directory,
          schemas,
          catalogue,
          trackers: deps.trackers,
        },
        leaseMs: config.jobLeaseMs,
        concurrency: config.jobConcurrency,
        scope,
      });
      const signingKeys = new SigningKeys(knex);
      const oauth = {
        issuer: config.baseUrl,
        apiResource: `${config.baseUrl}/v1`,
        mcpResource: config.mcpUrl,
        formKey: crypto.createHmac('sha256', Buffer.from(cursorSecret, 'hex')).update('sign-in form').digest(),
      };
      const authenticator = new Authenticator(knex, config.keyCacheMs, now, { ...oauth, keys: signingKeys });
      const service = new Service(
        config,
        database,
        schemas,
        catalogue,
        log,
        authenticator,
        deps,
        signingKeys,
        oauth,
        events,
        worker,
        outbound,
        deliveryThreads,
      );
      service.unobserveQueue = observeQueue(
        (at) => readyJobsByKind(knex, at),
        kinds.map((k) => k.kind),
      );
      return service;
    } catch (err) {
      await knex.destroy();
      throw err;
    }
  }

  get knex(): Knex {
    return this.database.knex;
  }

  /** Seals and opens third-party secrets at rest. */
  get secrets(): SecretBox {
    return this.deps.secrets;
  }

  /** Resolves a bearer credential for a surface (401/403 ServiceErrors otherwise). */
  authenticate(authorization: string | undefined, surface: Surface): Promise<Principal> {
    return this.authenticator.authenticate(authorization, surface).catch((err) => {
      throw classifyFault(err);
    });
  }

  /** Forgets cached credentials of grant `grantId` (its token family was just revoked: its access tokens answer 401 from now). */
  forgetGrant(grantId: number): void {
    this.authenticator.forgetGrant(grantId);
  }

  /** Runs an operation through the whole pipeline, within the request budget (504 `timeout` past it). */
  invoke(name: string, principal: Principal, input: Record<string, unknown>, options: InvokeOptions): Promise<InvokeResult> {
    const goesOn = () => this.catalogue.get(name)?.onTimeout?.(input);
    return withinBudget(invoke(this.deps, name, principal, input, options), this.config.requestTimeoutMs, this.log, options.requestId, goesOn);
  }

  /** Verifies and acts on a message to a workflow's video-review hook (ServiceErrors for refusals). */
  async receiveWorkflowHook(hookId: string, headers: Record<string, string | undefined>, body: string): Promise<HookAnswer> {
    // The workflows' modules load with the first hook message (or the first run of their jobs).
    const { receiveWorkflowHook } = await import('./workflows/hooks.js');
    return receiveWorkflowHook({ knex: this.knex, secrets: this.deps.secrets, events: this.deps.events, now: this.deps.now }, hookId, headers, body);
  }

  /** True when the database answers. */
  async healthy(): Promise<boolean> {
    try {
      await pingDatabase(this.knex);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * What keeps this process from taking traffic: a database that does not answer, migrations not
   * run, or (JOBS=on) a worker that is not claiming. Empty when ready.
   */
  async notReady(): Promise<NotReady[]> {
    try {
      await pingDatabase(this.knex);
    } catch {
      return [{ component: 'database', message: 'The database does not answer.' }];
    }
    const out: NotReady[] = [];
    const pending = await pendingMigrations(this.knex);
    if (pending.length) out.push({ component: 'migrations', message: `${pending.length} migration(s) have not run: run svc-server migrate.` });
    if (this.config.jobsEnabled && !this.jobs.claiming())
      out.push({ component: 'worker', message: 'JOBS=on but the job worker is not claiming (not started, stopping, or its last claim failed).' });
    else if (this.deliveryThreads && !this.deliveryThreads.claiming())
      out.push({
        component: 'worker',
        message: 'A delivery thread is not claiming yet (starting, restarting after a failure: see the log, or its last claim failed).',
      });
    return out;
  }

  /**
   * What an operator should know that does not stop this process taking traffic: the configured Graph
   * version (META_GRAPH_URL) ending within VERSION_NOTICE_DAYS, or one the version table does not list.
   */
  notices(): Array<{ component: string; message: string }> {
    const graph = versionNotice(this.config.metaGraphUrl, this.deps.now());
    return graph ? [{ component: 'meta_graph_version', message: graph }] : [];
  }

  /** The Prometheus exposition of this process (the queue gauges read now); null when METRICS_TOKEN is unset. */
  metrics(): Promise<{ contentType: string; body: string } | null> {
    return exposition(this.deps.now(), (err) => this.log.warn({ err }, 'could not read the job queue for metrics'));
  }

  /** Starts this process's job worker (and its delivery threads, when it has them, waiting until they claim) unless JOBS=off; `stopJobs` or `close` stops them. */
  async startJobs(): Promise<boolean> {
    if (!this.config.jobsEnabled) return false;
    await this.jobs.start();
    await this.deliveryThreads?.start();
    return true;
  }

  /** Stops claiming here and in the delivery threads; running jobs get `graceMs`, then are released to other processes. */
  async stopJobs(graceMs = this.config.shutdownGraceMs): Promise<void> {
    await Promise.all([this.jobs.stop(graceMs), this.deliveryThreads?.stop(graceMs)]);
  }

  /**
   * Stops the worker (running jobs get `graceMs`, default SHUTDOWN_GRACE_MS, then are released to
   * other processes), flushes traces and closes the pools.
   */
  async close(graceMs = this.config.shutdownGraceMs): Promise<void> {
    this.unobserveQueue();
    await this.stopJobs(graceMs);
    if (this.config.otelEndpoint) await stopTracing().catch((err) => this.log.warn({ err }, 'could not flush traces'));
    await this.outbound.close().catch(() => {});
    await this.deps.limiter.close().catch(() => {});
    await this.knex.destroy();
  }
}
