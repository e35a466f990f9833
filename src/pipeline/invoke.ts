// The single pipeline every surface calls: rate limit → scope → input validation → brand access →
// idempotency (claim or replay) → handler in a transaction (with its activity) → output shaping.

import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Principal } from '../auth/principal.js';
import type { BrandRow, Catalogue, NestedInvokeOptions, OperationContext, OperationDefinition } from '../catalogue/define.js';
import type { Config } from '../config.js';
import { inTransaction } from '../db/connection.js';
import { applyPatch } from '../merge-patch.js';
import { ServiceError, notFound } from '../errors.js';
import { activityRecorder, type ActivityRecorder } from '../activity/recorder.js';
import type { BrandDirectory, Outbox, WebhookSending } from '../catalogue/services.js';
import type { TrackerService } from '../catalogue/tracker-port.js';
import type { CursorCodec, PageCursor } from '../pagination/cursor.js';
import type { SchemaRegistry } from '../schemas/registry.js';
import type { RateLimiter, RateLimitSlot } from './rate-limit.js';
import type { Platforms } from '../platforms/registry.js';
import { serviceErrorOf } from '../platforms/registry.js';
import { PlatformError } from '../platforms/port.js';
import { classifyFault } from './faults.js';
import type { MetricsCache } from '../platforms/metrics-cache.js';
import type { SecretBox } from '../auth/encryption.js';
import type { OutboundClient } from '../outbound/client.js';
import { Accepted, type InvokeOptions, type InvokeResult, type ProgressUpdate, type StagedUpload } from '../catalogue/invoke-types.js';
import { observeRequest } from '../observability/requests.js';
import { claimIdempotencyKey, completeIdempotencyKey, releaseIdempotencyKey, renewIdempotencyLease, type Claim } from './idempotency.js';

export type { InvokeMeta, InvokeOptions, InvokeResult, ProgressUpdate } from '../catalogue/invoke-types.js';

export interface PipelineDeps {
  knex: Knex;
  config: Config;
  catalogue: Catalogue;
  schemas: SchemaRegistry;
  limiter: RateLimiter;
  cursors: CursorCodec;
  log: Logger;
  now: () => number;
  platforms: Platforms;
  metrics: MetricsCache;
  directory: BrandDirectory;
  events: Outbox;
  secrets: SecretBox;
  webhooks: WebhookSending;
  outbound: OutboundClient;
  trackers: TrackerService;
}

function checkIdempotencyKey(op: OperationDefinition, key: string | null | undefined): string | null {
  if (op.idempotency === 'none') return null;
  if (key === undefined || key === null) {
    if (op.idempotency === 'required') {
      throw new ServiceError(
        'idempotency_key_required',
        `${op.name} needs an Idempotency-Key (any unique string up to 255 characters) so a retry never acts twice.`,
      );
    }
    return null;
  }
  if (key.length < 1 || key.length > 255) {
    throw new ServiceError('validation_failed', 'Idempotency-Key must be 1 to 255 characters.', [
      { field: 'Idempotency-Key', code: key.length ? 'too_big' : 'too_small', message: 'must be 1 to 255 characters' },
    ]);
  }
  return key;
}

async function brandFor(directory: BrandDirectory, principal: Principal, brandId: number): Promise<BrandRow> {
  // Only the caller's organization is searched: a brand of another one answers exactly like a missing one.
  const row = await directory.brand(principal.organizationId, brandId);
  if (!row) throw notFound(`Brand ${brandId}`);
  if (principal.brandIds && !principal.brandIds.has(brandId)) {
    throw new ServiceError('brand_not_allowed', `This credential is not allowed on brand ${brandId}. Use a credential whose brand limit includes it.`, {
      reason: 'brand_not_allowed',
      brandId,
    });
  }
  return { id: row.id, organizationId: row.organizationId, name: row.name };
}

const notRenewing = () => 0;

/**
 * What a handler sees. The activity recorder and the page cursor are made on first use: most
 * calls never record activity or page.
 */
class InvocationContext implements OperationContext {
  private recorder: ActivityRecorder | null = null;
  private cursor: PageCursor | null = null;

  constructor(
    private readonly deps: PipelineDeps,
    private readonly op: OperationDefinition,
    private readonly input: Record<string, unknown>,
    readonly principal: Principal,
    readonly db: Knex | Knex.Transaction,
    readonly requestId: string,
    readonly log: Logger,
    readonly brand: BrandRow | null,
    readonly idempotency: { resumed: boolean } | null,
    private readonly onProgress: InvokeOptions['onProgress'],
    readonly upload: StagedUpload | null,
  ) {}

  progress(update: ProgressUpdate): void {
    try {
      this.onProgress?.(update);
    } catch (err) {
      // A listener that fails never stops the work it watches.
      this.log.warn({ requestId: this.requestId, err }, 'progress listener failed');
    }
  }

  get now(): () => number {
    return this.deps.now;
  }

  get config(): Config {
    return this.deps.config;
  }

  get platforms(): Platforms {
    return this.deps.platforms;
  }

  get metrics(): MetricsCache {
    return this.deps.metrics;
  }

  get directory(): BrandDirectory {
    return this.deps.directory;
  }

  get events(): Outbox {
    return this.deps.events;
  }

  get secrets(): SecretBox {
    return this.deps.secrets;
  }

  get webhooks(): WebhookSending {
    return this.deps.webhooks;
  }

  get outbound(): OutboundClient {
    return this.deps.outbound;
  }

  get trackers(): TrackerService {
    return this.deps.trackers;
  }

  get activity(): ActivityRecorder {
    return (this.recorder ??= activityRecorder(this.db, this.principal, this.deps.now));
  }

  get page(): PageCursor {
    return (this.cursor ??= this.deps.cursors.bind(this.op.name, this.input));
  }

  validate<T>(schemaId: string, data: unknown, prefix?: string): T {
    return this.deps.schemas.validateInput<T>(schemaId, data, prefix);
  }

  patch<T extends object>(current: T, body: Record<string, unknown>): T {
    const next = applyPatch(current, body, this.deps.schemas.bundle(this.op.input));
    const merged = Object.fromEntries(Object.keys(body).map((k) => [k, (next as Record<string, unknown>)[k]]));
    // A copy: validating fills in defaults, which must not reach what the handler saves.
    this.deps.schemas.validateInput(this.op.input, structuredClone({ ...this.input, ...merged }));
    return next;
  }

  invoke(name: string, input: Record<string, unknown>, options: NestedInvokeOptions = {}): Promise<InvokeResult> {
    if ((this.db as Knex.Transaction).isTransaction) {
      // The inner operation commits on its own; inside this transaction it would wait for it (SQLite) or outlive it.
      return Promise.reject(new Error(`${this.op.name}: ctx.invoke("${name}") needs a handler declared transactional: false, called outside its transactions`));
    }
    return invoke(this.deps, name, options.principal ?? this.principal, input, {
      requestId: this.requestId,
      idempotencyKey: options.idempotencyKey ?? null,
      log: this.log,
      nested: true,
      onProgress: this.onProgress,
    });
  }
}

/** How long a process records the same ad account's refused token once: an operator needs the entry, not one per page refresh. */
const TOKEN_REFUSAL_RECORD_MS = 60 * 60 * 1000;
/** When each service's pipeline last recorded a brand's ad account's refused token (`brandId:accountId` → ms). */
const tokenRefusalsRecorded = new WeakMap<PipelineDeps, Map<string, number>>();

/**
 * Records in the activity log that the ad platform refused the access token of the ad account `err` names
 * (live-platforms.md: a wrong or expired token answers 422 naming the account, "the activity log records
 * it"): written apart from the failed call's transaction, which rolled back, at most once an hour per
 * brand's account in this process, naming the account and never the token. An account without a token
 * (nothing was sent) is not a refusal. A failure to record is logged, never answered in the refusal's place.
 */
async function recordRefusedToken(
  deps: PipelineDeps,
  principal: Principal,
  brand: BrandRow,
  err: PlatformError,
  log: Logger,
  requestId: string,
): Promise<void> {
  const accountId = err.extra.accountId;
  if (err.kind !== 'authentication' || !accountId || err.extra.noToken) return;
  let recorded = tokenRefusalsRecorded.get(deps);
  if (!recorded) tokenRefusalsRecorded.set(deps, (recorded = new Map()));
  const key = `${brand.id}:${accountId}`;
  const at = deps.now();
  if (at - (recorded.get(key) ?? -Infinity) < TOKEN_REFUSAL_RECORD_MS) return;
  if (recorded.size > 10_000) recorded.clear();
  recorded.set(key, at);
  try {
    const account = await deps.platforms.account(deps.knex, brand.id, accountId).catch(() => null);
    await activityRecorder(deps.knex, principal, deps.now).record({
      brandId: brand.id,
      accountId,
      entityType: 'unknown',
      entityId: accountId,
      entityName: account?.name ?? accountId,
      action: 'ad_account.token_refused',
    });
  } catch (e) {
    recorded.delete(key);
    log.error({ requestId, err: e }, 'could not record the refused access token in the activity log');
  }
}

/** Answers already shaped by their output schema (kept only while a cache holds them). */
const shaped = new WeakSet<object>();

/** Runs one catalogue operation for `principal`; throws ServiceError for every refusal. */
export function invoke(
  deps: PipelineDeps,
  name: string,
  principal: Principal,
  rawInput: Record<string, unknown>,
  options: InvokeOptions,
): Promise<InvokeResult> {
  if (options.nested) return invokeOnce(deps, name, principal, rawInput, options);
  // An unknown name is caller text: it never becomes a label.
  const label = deps.catalogue.get(name) ? name : 'unknown';
  return observeRequest(options.surface ?? 'job', label, options.requestId, () => invokeOnce(deps, name, principal, rawInput, options));
}

async function invokeOnce(
  deps: PipelineDeps,
  name: string,
  principal: Principal,
  rawInput: Record<string, unknown>,
  options: InvokeOptions,
): Promise<InvokeResult> {
  const op = deps.catalogue.get(name);
  if (!op) throw notFound(`Operation ${name}`);
  const meta = options.meta ?? {};
  const log = options.log ?? deps.log;

  let slot: RateLimitSlot | null = null;
  if (!options.nested) {
    try {
      const pending = deps.limiter.acquire(principal.organizationId, options.requestId);
      slot = pending instanceof Promise ? await pending : pending;
    } catch (err) {
      log.error({ requestId: options.requestId, err }, 'rate limiter unavailable');
      throw new ServiceError('unavailable', 'The rate limiter could not be reached; nothing was done. Retry shortly.');
    }
    meta.rateLimit = slot.info;
    if (slot.refused) {
      throw new ServiceError(
        'rate_limited',
        slot.refused.reason === 'rate'
          ? `Too many requests for this organization (limit ${slot.info.limit} a minute). Wait ${slot.refused.retryAfter} seconds.`
          : 'Too many requests in flight for this organization. Wait for some to finish, then retry.',
        { reason: slot.refused.reason },
        slot.refused.retryAfter,
      );
    }
  }
  try {
    if (!principal.scopes.has(op.scope)) {
      throw new ServiceError(
        'insufficient_scope',
        `${op.name} needs the "${op.scope}" scope; this credential has ${[...principal.scopes].join(', ') || 'none'}.`,
        { requiredScope: op.scope },
      );
    }
    const key = checkIdempotencyKey(op, options.idempotencyKey);
    // A PATCH body is a merge patch: its object-valued fields are checked again once merged (ctx.patch).
    const input =
      op.method === 'PATCH'
        ? deps.schemas.validatePatchInput<Record<string, unknown>>(op.input, rawInput)
        : deps.schemas.validateInput<Record<string, unknown>>(op.input, rawInput);
    const brand = typeof input.brandId === 'number' ? await brandFor(deps.directory, principal, input.brandId) : null;
    // A staged file part is the operation's only when it declares that field; its bytes (by their hash) are part of the request.
    const upload = options.upload && op.upload?.field === options.upload.field ? options.upload : null;

    let claim: Claim | null = null;
    if (key) {
      claim = await claimIdempotencyKey(deps.knex, {
        organizationId: principal.organizationId,
        credentialId: principal.credentialId,
        operation: op.name,
        key,
        input: upload ? { ...input, [upload.field]: { ...(input[upload.field] as object), sha256: upload.sha256 } } : input,
        now: deps.now(),
        leaseMs: deps.config.idempotencyLeaseMs,
      });
      if (claim.kind === 'replay') {
        meta.replayed = true;
        return { status: claim.status, body: claim.body, replayed: true };
      }
    }
    const recordId = claim?.kind === 'run' ? claim.recordId : null;
    const stopRenewing =
      claim?.kind === 'run' ? renewIdempotencyLease(deps.knex, claim.recordId, claim.leaseExpiresAt, deps.config.idempotencyLeaseMs, deps.now) : notRenewing;
    const idempotency = claim?.kind === 'run' ? { resumed: claim.resumed } : null;

    const run = async (db: Knex | Knex.Transaction): Promise<InvokeResult> => {
      const ctx = new InvocationContext(deps, op, input, principal, db, options.requestId, log, brand, idempotency, options.onProgress, upload);
      const answered = await op.handler(ctx, input);
      // Accepted, not done (an approval by a person): 202 with what it waits for.
      const accepted = answered instanceof Accepted ? answered : null;
      const body = accepted ? accepted.body : answered;
      const output = accepted ? accepted.output : op.output;
      // An answer object served again from an in-memory cache was shaped the first time.
      const issues = shaped.has(body as object) ? [] : deps.schemas.shapeOutput(output, body);
      if (issues.length === 0 && body && typeof body === 'object') shaped.add(body as object);
      if (issues.length > 0) {
        log.error({ requestId: options.requestId, operation: op.name, issues }, 'operation answer does not match its output schema');
        if (deps.config.strictOutput) throw new Error(`${op.name} answer breaks ${output}: ${JSON.stringify(issues)}`);
      }
      const status = accepted ? 202 : (op.successStatus ?? 200);
      if (recordId !== null) await completeIdempotencyKey(db, recordId, status, body);
      return { status, body, replayed: false };
    };

    try {
      // Reads need no transaction; a write that talks to an ad platform manages its own.
      const transactional = op.transactional ?? !op.annotations.readOnly;
      const result = transactional ? await inTransaction(deps.knex, run) : await run(deps.knex);
      stopRenewing();
      return result;
    } catch (err) {
      const leaseEnd = stopRenewing();
      if (recordId !== null)
        await releaseIdempotencyKey(deps.knex, recordId, leaseEnd).catch((e) =>
          log.error({ requestId: options.requestId, err: e }, 'could not release idempotency key'),
        );
      if (err instanceof PlatformError) {
        log.warn({ requestId: options.requestId, operation: op.name, platformError: err.kind, message: err.message, extra: err.extra }, 'ad platform refused');
        if (brand) await recordRefusedToken(deps, principal, brand, err, log, options.requestId);
        throw serviceErrorOf(err);
      }
      throw err;
    }
  } catch (err) {
    // The one place a dependency failure becomes 503 unavailable (with Retry-After) for every surface and job.
    const classified = classifyFault(err);
    if (classified !== err) log.warn({ requestId: options.requestId, operation: name, err }, 'a dependency failed; answered 503 unavailable');
    throw classified;
  } finally {
    try {
      if (slot) await deps.limiter.release(slot);
    } catch (e) {
      log.error({ requestId: options.requestId, err: e }, 'could not release rate-limit slot');
    }
  }
}
