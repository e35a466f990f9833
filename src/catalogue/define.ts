// The operation catalogue: every externally callable action is defined once (defineOperation),
// with the context its handler is typed with; REST routes, MCP tools, CLI commands and OpenAPI are
// all generated from these definitions, and the Catalogue checks them at boot.

import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Principal, Scope } from '../auth/principal.js';
import type { PageCursor } from '../pagination/cursor.js';
import type { Config } from '../config.js';
import { SCOPES } from '../auth/principal.js';
import type { SchemaRegistry } from '../schemas/registry.js';
import type { Platforms } from '../platforms/registry.js';
import type { MetricsCache } from '../platforms/metrics-cache.js';
import type { SecretBox } from '../auth/encryption.js';
import type { OutboundClient } from '../outbound/client.js';
import type { ErrorCode } from '../errors.js';
import type { InvokeResult, ProgressUpdate, StagedUpload } from './invoke-types.js';
import type { FollowDeclaration } from './follow.js';
import type { ActivityRecorder, BrandDirectory, Outbox, WebhookSending } from './services.js';
import type { TrackerService } from './tracker-port.js';
import type { Inputs } from './inputs.generated.js';
import { TOOLSET_NAMES, isToolset, type Toolset } from '../toolsets.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type IdempotencyMode = 'none' | 'optional' | 'required';

export interface OperationAnnotations {
  readOnly: boolean;
  destructive: boolean;
  idempotent: boolean;
  openWorld: boolean;
}

export interface BrandRow {
  id: number;
  organizationId: number;
  name: string;
}

/**
 * What every handler gets: who is calling, the transaction, the clock, the request id and the log.
 * Everything else is a service the operation declares in `uses` (see Services).
 */
export interface BaseContext {
  principal: Principal;
  /** The handler's transaction, or the connection for reads and `transactional: false` handlers. Pass it to store functions. */
  db: Knex | Knex.Transaction;
  now: () => number;
  requestId: string;
  log: Logger;
}

/** The services a handler may ask for by naming them in its operation's `uses`. */
export interface Services {
  config: Config;
  activity: ActivityRecorder;
  /** Cursor codec bound to this operation, its filters and its limit. */
  page: PageCursor;
  /** Ad-platform adapters and the brand's ad accounts. */
  platforms: Platforms;
  /** Short cache of live platform reads, per ad account. */
  metrics: MetricsCache;
  /** Validates `data` against a schema; issues name fields below `prefix` (400 validation_failed). */
  validate<T>(schemaId: string, data: unknown, prefix?: string): T;
  /**
   * PATCH: `current` with the body's fields applied (object-valued ones merged as RFC 7396,
   * src/merge-patch.ts), each field sent checked as merged against the operation's input schema
   * (400 validation_failed names what the merge left invalid, e.g. a removed required key).
   */
  patch<T extends object>(current: T, body: Record<string, unknown>): T;
  /** Set when the call carries an Idempotency-Key; resumed when it takes over a crashed earlier attempt. */
  idempotency: { resumed: boolean } | null;
  /** The organization's brands and primary ad accounts (cached briefly). */
  directory: BrandDirectory;
  /** The event outbox: `events.emit(trx, ...)` writes an event in the caller's transaction. */
  events: Outbox;
  /** Seals and opens third-party secrets (webhook signing secrets, tracker keys). */
  secrets: SecretBox;
  /** Sends webhook messages (test sends; the delivery job uses the same sender). */
  webhooks: WebhookSending;
  /** The one client that calls outside services, with the outbound address rule; `urlProblem` checks a caller URL before it is saved. */
  outbound: OutboundClient;
  /** Click-tracker adapters (Keitaro at the brand's baseUrl, or the sandbox for `sandbox:`) and the brand's connection. */
  trackers: TrackerService;
  /**
   * Runs another operation through the whole pipeline (scope, input validation, brand access,
   * idempotency, its own transaction, activity, output shaping) as this caller, or as
   * `options.principal`, within this request: not counted again against the rate limit. Only from
   * a handler declared `transactional: false`, outside any transaction of its own (the inner
   * operation commits on its own; on SQLite a held transaction would wait for ever).
   */
  invoke(name: string, input: Record<string, unknown>, options?: NestedInvokeOptions): Promise<InvokeResult>;
  /**
   * Reports how far a long operation has come (publish, push, automation run, template apply).
   * Goes to the caller's surface when it listens (InvokeOptions.onProgress); otherwise nothing.
   */
  progress(update: ProgressUpdate): void;
  /** The file part of a multipart upload, already staged in the creatives storage (null when the call carried none). */
  upload: StagedUpload | null;
}

export type ServiceName = keyof Services;

/** A context with the base members and the services `U`: what a function called by handlers asks for. */
export type ServiceContext<U extends ServiceName = never> = BaseContext & Pick<Services, U>;

/** The same with the brand of a `/brands/{brandId}` operation, for functions that act on it. */
export type BrandContext<U extends ServiceName = never> = ServiceContext<U> & { brand: BrandRow };

/** The brand member of a handler's context: present (never null) exactly when the path starts with /brands/{brandId}. */
export type BrandOf<P extends string> = P extends `/brands/{brandId}${string}` ? { brand: BrandRow } : unknown;

/** The context of a handler of path `P` declaring `uses: U[]`. */
export type HandlerContext<P extends string, U extends ServiceName> = ServiceContext<U> & BrandOf<P>;

/**
 * Everything the pipeline's context object holds (pipeline/invoke.ts builds one per call). No handler
 * sees all of it: each gets the narrow view its operation's `uses` and path declare (ContextOf).
 */
export interface OperationContext extends BaseContext, Services {
  /** The brand named by `brandId`, already checked against the credential; null on unscoped operations. */
  brand: BrandRow | null;
}

/** The input type generated for operation `N` (inputs.generated.ts); a plain record for operations it does not list (tests'). */
export type InputOf<N extends string> = N extends keyof Inputs ? Inputs[N] : Record<string, any>;

/**
 * The `db` of a handler declared `transactional: false`: the Knex instance itself, from which it
 * opens its own transactions (inTransaction) around the steps that need one.
 */
export interface OwnTransactions {
  db: Knex;
}

/**
 * A handler's context: BaseContext, the brand of its path, the services its `uses` names, and
 * `db: Knex` when it is `transactional: false`.
 */
export type ContextOf<P extends string, U extends readonly ServiceName[], T extends boolean | undefined = undefined> = HandlerContext<P, U[number]> &
  (T extends false ? OwnTransactions : unknown);

export interface NestedInvokeOptions {
  /** Idempotency-Key of the inner call: derive it from what makes the call unique, so a retry never acts twice. */
  idempotencyKey?: string | null;
  /** Acts as this principal instead of the caller (e.g. a workflow run as its key). */
  principal?: Principal;
}

/** A check of an uploaded file's leading bytes and whole size, before it is read whole; throws (or rejects) 400 on `field`. */
export type UploadHeadCheck = (head: Buffer, size: number, field: string) => void | Promise<void>;

export interface OperationDefinition<I = any, O = any> {
  /** Stable kebab-case id: MCP tool `name_with_underscores`, CLI `svc <name>`. */
  name: string;
  method: HttpMethod;
  /** Path below `/v1`, with `{param}` placeholders. */
  path: string;
  scope: Scope;
  idempotency: IdempotencyMode;
  /** Schema ids: path params and query/body merged into one object; the output is an allow-list. */
  input: string;
  output: string;
  annotations: OperationAnnotations;
  summary: string;
  description?: string;
  /**
   * Failure codes of this operation's own rules (e.g. `conflict`), beyond those its path, scope
   * and idempotency imply (see failures.ts); tool descriptions list them all.
   */
  errors?: ErrorCode[];
  /** Area used to group commands and OpenAPI tags. */
  tag: string;
  /** The MCP toolset (toolsets.ts) whose tools include this operation's. */
  toolset: Toolset;
  /** HTTP status of a success (default 200). */
  successStatus?: number;
  /**
   * Offered on no surface (no REST route, MCP tool, CLI command or OpenAPI entry): the service
   * invokes it itself, through the same pipeline, as a principal of its own (a job's, an engine's).
   */
  internal?: boolean;
  /** Run the handler inside one database transaction (default: true unless annotated read-only). */
  transactional?: boolean;
  /**
   * What a 504 `timeout` tells the caller when the request budget runs out while the work goes on
   * (a publish): the message's last sentence and the details (e.g. `launchId`, `status`).
   */
  onTimeout?(input: Record<string, unknown>): { message: string; details: Record<string, unknown> } | undefined;
  /**
   * Accept a file upload: surfaces that speak multipart (REST `multipart/form-data`) stream the file
   * part named `field` to the creatives storage's staging area (creatives/staging.ts), refusing a
   * file larger than `maxBytes` while it streams in, and hand it to the operation as `ctx.upload`
   * with `{fileName}` as that input property; `checkHead` sees the file's leading bytes and size as
   * soon as they are in, and throws what they already refuse.
   */
  upload?: { field: string; maxBytes: number; checkHead?: UploadHeadCheck };
  /**
   * The operation starts work that goes on after it answers (202 and a run): the read that answers
   * that work as it stands, which the CLI and the MCP call handler follow to its end (follow.ts).
   */
  follow?: FollowDeclaration;
  /**
   * The services (keys of Services) the handler uses beyond the base context (`[]` for none); its
   * context is typed with exactly those.
   */
  uses: readonly ServiceName[];
  handler: (ctx: OperationContext, input: I) => Promise<O>;
}

/**
 * What `defineOperation` takes: an OperationDefinition whose handler is typed from the definition
 * itself. `path` gives the brand (BrandOf), `uses` the services and `name` the input: the handler
 * receives Inputs[name], the type generated from its input schema (an annotation, e.g.
 * `input: Inputs['create-launch']`, must accept it); an operation the generated types do not list
 * (a test's) types its input by its own annotation.
 */
export type OperationSpec<N extends string, P extends string, U extends readonly ServiceName[], T extends boolean | undefined, I, O> = Omit<
  OperationDefinition<I, O>,
  'name' | 'path' | 'uses' | 'transactional' | 'handler'
> & {
  name: N;
  path: P;
  uses: U;
  transactional?: T;
  handler: (ctx: ContextOf<P, U, T>, input: N extends keyof Inputs ? Inputs[N] : I) => Promise<O>;
};

const NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

/**
 * Declares an operation; the catalogue checks it again at boot against the schemas. The handler's
 * context is narrowed by type only: the pipeline passes the same context object to every handler,
 * with `brand` set whenever the path names {brandId} (the catalogue makes brandId a required
 * integer there), so the handler stored for the pipeline takes the whole OperationContext.
 */
export function defineOperation<
  const N extends string,
  const P extends string,
  const U extends readonly ServiceName[],
  const T extends boolean | undefined = undefined,
  I = InputOf<N>,
  O = unknown,
>(op: OperationSpec<N, P, U, T, I, O>): OperationDefinition<I, O> {
  return op as unknown as OperationDefinition<I, O>;
}

/** The operations of one service instance, checked at boot: a bad entry stops the server from starting. */
export class Catalogue {
  private readonly ops = new Map<string, OperationDefinition>();

  constructor(
    private readonly schemas: SchemaRegistry,
    operations: OperationDefinition[],
  ) {
    for (const op of operations) this.add(op);
    this.checkFollows();
  }

  private add(op: OperationDefinition): void {
    const where = `operation "${op.name}"`;
    if (!NAME.test(op.name ?? '')) throw new Error(`${where}: name must be kebab-case`);
    if (this.ops.has(op.name)) throw new Error(`${where} is defined twice`);
    if (!SCOPES.includes(op.scope)) throw new Error(`${where}: scope must be one of ${SCOPES.join(', ')}; got ${String(op.scope)}`);
    if (!isToolset(op.toolset)) throw new Error(`${where}: toolset must be one of ${TOOLSET_NAMES.join(', ')}; got ${String(op.toolset)}`);
    if (!['none', 'optional', 'required'].includes(op.idempotency)) throw new Error(`${where}: idempotency must be none, optional or required`);
    if (!op.path?.startsWith('/')) throw new Error(`${where}: path must start with /`);
    // Schemas compile on first use (src/schemas/registry.ts); test/unit/catalogue.test.ts compiles every one.
    for (const id of [op.input, op.output]) {
      if (!this.schemas.has(id)) throw new Error(`${where}: schema "${id}" does not exist under schemas/`);
    }
    if (op.method === 'PATCH') this.schemas.preparePatch(op.input);
    const input = this.schemas.bundle(op.input);
    if (input.type !== 'object') throw new Error(`${where}: input schema must be an object`);
    const props = (input.properties ?? {}) as Record<string, unknown>;
    for (const param of pathParams(op.path)) {
      if (!props[param] || !(input.required as string[] | undefined)?.includes(param)) {
        throw new Error(`${where}: path parameter {${param}} must be a required property of ${op.input}`);
      }
    }
    // Handlers below /brands/{brandId} are typed with a brand that is never null: the pipeline loads it for an integer brandId.
    if (op.path.startsWith('/brands/{brandId}') && (props.brandId as { type?: unknown }).type !== 'integer') {
      throw new Error(`${where}: brandId must be an integer (common#/$defs/brandId) below /brands/{brandId}`);
    }
    this.ops.set(op.name, op);
  }

  /** Checks every follow declaration against the operations (called once all are added). */
  private checkFollows(): void {
    for (const op of this.ops.values()) {
      if (!op.follow) continue;
      const read = this.ops.get(op.follow.operation);
      if (!read) throw new Error(`operation "${op.name}": follows "${op.follow.operation}", which is not an operation`);
      if (read.scope !== 'read') throw new Error(`operation "${op.name}": follows "${read.name}", which must be a read (scope read)`);
      const props = (this.schemas.bundle(read.input).properties ?? {}) as Record<string, unknown>;
      for (const name of [...op.follow.carry, ...Object.keys(op.follow.from)]) {
        if (!props[name]) throw new Error(`operation "${op.name}": follow passes ${name}, which is not an input of ${read.name}`);
      }
    }
  }

  get(name: string): OperationDefinition | undefined {
    return this.ops.get(name);
  }

  /** The operations the surfaces offer (internal ones left out). */
  list(): OperationDefinition[] {
    return [...this.ops.values()].filter((op) => !op.internal);
  }
}

/** The `{param}` names of a path template, in order. */
export function pathParams(path: string): string[] {
  return [...path.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((m) => m[1]);
}
