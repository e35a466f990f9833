// The REST surface: Koa on /v1. It only translates HTTP to `invoke` and back: routes come from
// the catalogue; status codes, headers and the error envelope are set here.

import crypto from 'node:crypto';
import Koa from 'koa';
import type { RouterMiddleware } from '@koa/router';
import { loadKoaBody } from '../lazy-body.js';
import { setPageHeaders } from '../page-headers.js';
import { charsetProblem, decodedRequest, jsonTextOf, readBodyBytes, type DecodedRequest } from '../json-body.js';
import type { Service } from '../../src/service.js';
import type { Principal } from '../../src/auth/principal.js';
import type { OperationDefinition } from '../../src/catalogue/define.js';
import type { StagedUpload } from '../../src/catalogue/invoke-types.js';
import { StagingFile, discard } from '../../src/creatives/staging.js';
import { pathParams } from '../../src/catalogue/define.js';
import { classifyFault } from '../../src/pipeline/faults.js';
import { ServiceError, envelopeOf, httpStatusOf, validationFailed, type FieldIssue } from '../../src/errors.js';
import type { InvokeMeta } from '../../src/pipeline/invoke.js';
import { fromAnswerJson } from '../../src/serialized.js';
import { textProblem } from '../../src/schemas/text.js';
import { RouteGroups, type RouteRegistrar } from './routing.js';
import { operatingRoutes } from './operating.js';
import { DECISION_PATH, decisionCaller } from './approval-decision.js';
import { HOOK_BODY_LIMIT } from '../../src/workflows/kinds.js';

const BODY_LIMIT_BYTES = 5 * 1024 * 1024;
/** The largest multipart body: the file's cap and room for boundaries, part headers and the small text fields beside it. */
const MULTIPART_MAX_BYTES = 32 * 1024 * 1024;

interface State {
  requestId: string;
  meta: InvokeMeta;
  /** Set early by an upload route, so a stranger is refused before the file is read. */
  principal?: Principal;
  /** The file part an upload route staged, for the operation. */
  upload?: StagedUpload;
}

type Ctx = Koa.ParameterizedContext<State>;

const JSON_TYPE = 'application/json; charset=utf-8';

// An answer's bytes, made once per answer object (a Buffer body goes to the socket as it is).
const encoded = new WeakMap<object, Buffer>();

/** A ServiceError whose HTTP status differs from its code's usual one (413 validation_failed). */
class HttpStatusError extends ServiceError {
  constructor(
    readonly status: number,
    ...args: ConstructorParameters<typeof ServiceError>
  ) {
    super(...args);
  }
}

const tooLarge = () =>
  new HttpStatusError(413, 'validation_failed', 'The request body is larger than 5 MB. Send a smaller body.', [
    { field: 'body', code: 'too_big', message: 'must be at most 5 MB' },
  ]);

const hookTooLarge = () =>
  new HttpStatusError(413, 'validation_failed', `The hook body is larger than ${HOOK_BODY_LIMIT / 1024} KB. Send a smaller payload.`, [
    { field: 'body', code: 'too_big', message: `must be at most ${HOOK_BODY_LIMIT / 1024} KB` },
  ]);

function unrecognized(fields: string[]): ServiceError {
  const issues: FieldIssue[] = fields.map((field) => ({ field, code: 'unrecognized_key', message: `is not recognised; remove "${field}"` }));
  return new ServiceError('validation_failed', `Invalid request: ${fields.map((f) => `"${f}"`).join(', ')} not recognised.`, issues);
}

async function parseJsonBody(ctx: Ctx, next: Koa.Next): Promise<void> {
  const declared = Number(ctx.get('content-length') || 0);
  const hasBody = declared > 0 || Boolean(ctx.get('transfer-encoding'));
  if (!hasBody) {
    ctx.request.body = {};
    return next();
  }
  if (!ctx.is('application/json')) {
    throw new ServiceError('validation_failed', 'Send the request body as JSON with "Content-Type: application/json".', [
      { field: 'Content-Type', code: 'invalid_value', message: 'must be application/json' },
    ]);
  }
  const wrongCharset = charsetProblem(ctx.get('content-type'));
  if (wrongCharset) throw wrongCharset;
  if (declared > BODY_LIMIT_BYTES) throw tooLarge();
  // Every method's body is parsed (DELETE's too), so unknown fields are named, not misreported; the
  // bytes are checked as UTF-8 before they become text (json-body.ts).
  const text = jsonTextOf(await readBodyBytes(ctx.req, BODY_LIMIT_BYTES, tooLarge));
  let body: unknown = {};
  if (text.trim()) {
    try {
      body = JSON.parse(text);
    } catch {
      throw new ServiceError('validation_failed', 'The request body is not valid JSON. Send a JSON object.', null);
    }
  }
  ctx.request.body = body as Koa.Request['body'];
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new ServiceError('validation_failed', 'The request body must be a JSON object.', null);
  }
  return next();
}

// An upload past its limit is a body that is too large: 413, like a JSON body over 5 MB.
const fileTooBig = (field: string, maxBytes: number) =>
  new HttpStatusError(413, 'validation_failed', `The ${field} is larger than ${maxBytes / (1024 * 1024)} MB. Send a smaller file.`, [
    { field, code: 'too_big', message: `must be at most ${maxBytes / (1024 * 1024)} MB (${maxBytes} bytes)` },
  ]);

/** Formidable's refusals as the contract's errors; anything that is not a formidable refusal stays unexpected. */
function multipartError(err: Error & { code?: unknown }, field: string, maxBytes: number): Error {
  switch (err.code) {
    case 1009: // biggerThanTotalMaxFileSize
    case 1016: // biggerThanMaxFileSize
      return fileTooBig(field, maxBytes);
    case 1008: // smallerThanMinFileSize
    case 1010: // noEmptyFiles
      return validationFailed([{ field, code: 'too_small', message: 'must not be empty' }]);
    case 1006: // maxFieldsSizeExceeded
    case 1007: // maxFieldsExceeded
      return validationFailed([{ field: 'body', code: 'too_big', message: 'has too many or too long text fields' }]);
    default:
      if (typeof err.code === 'number' && err.code >= 1000) {
        return new ServiceError('validation_failed', `The request body is not valid multipart/form-data. Send the file in a part named "${field}".`, null);
      }
      return err;
  }
}

/**
 * Body parser of an operation that takes a file: multipart/form-data becomes the same input a JSON
 * body gives (text parts as strings, the file part as `{fileName}`), and the file part itself is
 * streamed to the creatives storage's staging area as it arrives (creatives/staging.ts: hashed, its
 * head checked, cut at its cap), handed to the operation as its staged upload and never held in
 * memory whole. Whatever the call does, the staged files are removed once it answered (the operation
 * moved the one it kept into place). JSON goes through the usual parser.
 */
function parseUploadBody(service: Service, upload: NonNullable<OperationDefinition['upload']>): Koa.Middleware<State> {
  const { field, maxBytes, checkHead } = upload;
  return async (ctx, next) => {
    if (!ctx.is('multipart/form-data')) return parseJsonBody(ctx, next);
    // Counted as it arrives: a body declared past the cap is refused unread, and the file part is cut
    // at its cap while it streams to the staging area (never held in memory whole).
    if (Number(ctx.get('content-length') || 0) > Math.max(MULTIPART_MAX_BYTES, maxBytes)) throw fileTooBig(field, maxBytes);
    // A content-encoded body is decoded as it streams, by the reader JSON bodies use, its cap counted after decoding.
    const encoded = (ctx.get('content-encoding') || 'identity').trim().toLowerCase() !== 'identity';
    let decoded: DecodedRequest | undefined;
    if (encoded) {
      try {
        decoded = decodedRequest(ctx.req, Math.max(MULTIPART_MAX_BYTES, maxBytes), () => fileTooBig(field, maxBytes));
      } catch (err) {
        ctx.req.resume();
        throw err;
      }
    }
    // koa-body reads the request from ctx.req: handed the decoded body instead, everything else as it is.
    const parsing: typeof ctx = decoded ? Object.create(ctx, { req: { value: decoded } }) : ctx;
    const staging = new Map<object, StagingFile>();
    try {
      const koaBody = await loadKoaBody();
      await koaBody({
        multipart: true,
        json: false,
        urlencoded: false,
        text: false,
        patchNode: false,
        formidable: {
          maxFileSize: maxBytes,
          maxTotalFileSize: maxBytes,
          maxFields: 20,
          maxFieldsSize: 64 * 1024,
          // Names and text fields as their raw bytes ('binary' is latin1: one char a byte), read as strict UTF-8 below: a bad byte is refused, never turned into U+FFFD.
          encoding: 'binary',
          // Each file part goes straight to the staging area, hashed and checked on the way.
          fileWriteStreamHandler: (file?: object) => {
            const stage = new StagingFile(service.config.creativesDir, field, checkHead ?? (() => undefined));
            staging.set(file ?? stage, stage);
            return stage;
          },
        },
        onError(err: Error & { code?: unknown }) {
          // The rest of the body is read and dropped, so the connection stays usable for the answer.
          decoded?.destroy();
          ctx.req.resume();
          throw multipartError(err, field, maxBytes);
        },
      })(parsing, async () => {});
      // A refusal the staged file raised while it finished is the answer, even if the parser went on.
      for (const stage of staging.values()) if (stage.errored) throw multipartError(stage.errored, field, maxBytes);
      const rawFields = (ctx.request.body ?? {}) as Record<string, string | string[]>;
      if (field in rawFields) throw validationFailed([{ field, code: 'invalid_type', message: 'must be a file part (with a filename), not a text field' }]);
      const fields = utf8Fields(rawFields);
      const files = utf8Keys(ctx.request.files ?? {});
      const strayFiles = Object.keys(files).filter((k) => k !== field);
      if (strayFiles.length) throw unrecognized(strayFiles);
      const file = files[field];
      if (Array.isArray(file)) throw validationFailed([{ field, code: 'invalid_value', message: `must be one file; send a single part named "${field}"` }]);
      if (field in fields) throw validationFailed([{ field, code: 'invalid_type', message: 'must be a file part (with a filename), not a text field' }]);
      const body: Record<string, unknown> = { ...fields };
      if (file) {
        const fileName = strictText(file.originalFilename ?? '', `${field}.fileName`);
        const stage = staging.get(file);
        if (!stage) throw new Error(`upload: the file part "${field}" was not staged`);
        body[field] = { fileName };
        ctx.state.upload = stage.staged(fileName);
      }
      ctx.request.body = body as Koa.Request['body'];
      await next();
    } finally {
      decoded?.destroy();
      await Promise.all([...staging.values()].map(discard));
    }
  };
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** A multipart name or value formidable gave as raw bytes (latin1), read as strict UTF-8 text; 400 on `field` when it is not. */
function strictText(raw: string, field: string): string {
  let text: string;
  try {
    text = strictUtf8.decode(Buffer.from(raw, 'latin1'));
  } catch {
    throw validationFailed([{ field, code: 'invalid_value', message: 'must be UTF-8 text' }]);
  }
  const problem = textProblem(text);
  if (problem) throw validationFailed([{ field, code: 'invalid_value', message: problem }]);
  return text;
}

function utf8Keys<T>(raw: Record<string, T>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const [k, v] of Object.entries(raw)) out[strictText(k, 'body')] = v;
  return out;
}

function utf8Fields(raw: Record<string, string | string[]>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(utf8Keys(raw))) out[k] = Array.isArray(v) ? v.map((x) => strictText(x, k)) : strictText(v, k);
  return out;
}

function routeFor(service: Service, op: OperationDefinition): RouterMiddleware<State> {
  const inPath = pathParams(op.path);
  const takesBody = op.method !== 'GET' && op.method !== 'DELETE';
  return async (ctx) => {
    const principal = ctx.state.principal ?? (await service.authenticate(ctx.get('authorization') || undefined, 'api'));
    const query = ctx.query as Record<string, string | string[] | undefined>;
    const pathInput = service.schemas.coerceParams(op.input, ctx.params as Record<string, string>);
    let input: Record<string, unknown>;
    if (takesBody) {
      const queryKeys = Object.keys(query);
      const body = ctx.request.body as Record<string, unknown>;
      const clashing = Object.keys(body).filter((k) => inPath.includes(k));
      if (queryKeys.length || clashing.length) throw unrecognized([...queryKeys, ...clashing]);
      input = { ...body, ...pathInput };
    } else {
      const clashing = Object.keys(query).filter((k) => inPath.includes(k));
      // GET and DELETE take their input from the path and query: any body field is unknown.
      const bodyFields = Object.keys((ctx.request.body as Record<string, unknown> | undefined) ?? {});
      if (clashing.length || bodyFields.length) throw unrecognized([...clashing, ...bodyFields]);
      input = { ...service.schemas.coerceParams(op.input, query), ...pathInput };
    }
    const idempotencyKey = ctx.headers['idempotency-key'];
    const result = await service.invoke(op.name, principal, input, {
      surface: 'api',
      requestId: ctx.state.requestId,
      idempotencyKey: Array.isArray(idempotencyKey) ? idempotencyKey[0] : idempotencyKey,
      meta: ctx.state.meta,
      upload: ctx.state.upload,
    });
    ctx.status = result.status;
    // Set as a header, so Koa does not look the type up again on every answer.
    ctx.set('Content-Type', JSON_TYPE);
    ctx.body = fromAnswerJson(encoded, result.body, (json) => Buffer.from(json, 'utf8'));
    if (result.replayed) ctx.set('Idempotent-Replayed', 'true');
  };
}

/** Route modules loaded on the first request to one of their paths: a path is one of `paths`, or under one of them (`<path>/...`). */
interface LazyRoutes {
  paths: string[];
  load(): Promise<(router: RouteRegistrar<{ requestId: string }>, service: Service) => void>;
}

const LAZY_ROUTES: LazyRoutes[] = [
  {
    paths: ['/oauth', '/account', '/.well-known/oauth-authorization-server', '/.well-known/jwks.json'],
    load: async () => (await import('../oauth/routes.js')).oauthRoutes,
  },
  { paths: ['/console'], load: async () => (await import('../console/routes.js')).consoleRoutes },
];

/** Dispatches a request under one of `groups`' paths to its routes, loading them on its first request; other requests go on. */
function lazyRoutes(service: Service, groups: LazyRoutes[]): Koa.Middleware<State> {
  const loaded = new Map<LazyRoutes, Promise<Koa.Middleware<State>>>();
  const routesOf = (group: LazyRoutes) => {
    let routes = loaded.get(group);
    if (!routes) {
      routes = group.load().then((register) => {
        const router = new RouteGroups<State>();
        register(router as unknown as RouteGroups<{ requestId: string }>, service);
        return router.routes();
      });
      // A module that failed to load is tried again on the next request.
      routes.catch(() => loaded.delete(group));
      loaded.set(group, routes);
    }
    return routes;
  };
  const under = (path: string, prefix: string) => path === prefix || (path.startsWith(prefix) && path.charCodeAt(prefix.length) === 47); /* "/" */
  return async (ctx, next) => {
    const group = groups.find((g) => g.paths.some((p) => under(ctx.path, p)));
    if (!group) return next();
    return (await routesOf(group))(ctx, next);
  };
}

/** Builds the Koa application serving /v1 (and every path but /healthz and MCP's) for a service. */
export function createRestApp(service: Service): Koa<State> {
  const app = new Koa<State>();
  app.proxy = false;
  app.silent = true;
  // Built on its first request (test/e2e/rest/openapi.test.ts checks it), not at start-up.
  let openapi: ReturnType<typeof import('./openapi.js').buildOpenApi> | undefined;

  app.use(async (ctx, next) => {
    const logged = service.log.isLevelEnabled('info');
    const started = logged ? performance.now() : 0;
    ctx.state.requestId = `req_${crypto.randomUUID().replace(/-/g, '')}`;
    ctx.state.meta = {};
    ctx.set('Service-Request-Id', ctx.state.requestId);
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new ServiceError('not_found', `No endpoint ${ctx.method} ${ctx.path}. The endpoints are listed in /v1/openapi.json.`, null);
      }
    } catch (thrown) {
      // Routes outside the pipeline (OAuth, health) meet the database too: a dependency down is 503 there as well.
      const err = classifyFault(thrown);
      const known = err instanceof ServiceError;
      if (!known) service.log.error({ err, requestId: ctx.state.requestId }, 'unexpected error');
      const envelope = envelopeOf(err, ctx.state.requestId);
      ctx.status = err instanceof HttpStatusError ? err.status : httpStatusOf[envelope.error.code];
      ctx.body = envelope;
      if (known && err.retryAfter !== null) ctx.set('Retry-After', String(err.retryAfter));
      if (ctx.status === 401) {
        const metadata = `${service.config.baseUrl}/.well-known/oauth-protected-resource/v1`;
        // RFC 6750: error="invalid_token" when a credential was sent but refused.
        ctx.set(
          'WWW-Authenticate',
          ctx.get('authorization') ? `Bearer error="invalid_token", resource_metadata="${metadata}"` : `Bearer resource_metadata="${metadata}"`,
        );
      }
    } finally {
      // The people's pages (OAuth, account, console) cannot be framed, whatever answered: a route, an error, a 404.
      setPageHeaders(ctx.path, (name, value) => ctx.set(name, value));
      const rl = ctx.state.meta.rateLimit;
      if (rl) {
        ctx.set('RateLimit-Limit', String(rl.limit));
        ctx.set('RateLimit-Remaining', String(rl.remaining));
        ctx.set('RateLimit-Reset', String(rl.resetSeconds));
      }
      if (logged) {
        const ms = Math.round((performance.now() - started) * 10) / 10;
        service.log.info({ requestId: ctx.state.requestId, method: ctx.method, path: ctx.path, status: ctx.status, ms }, 'request');
      }
    }
  });

  // GET /healthz is answered by the HTTP server itself (surfaces/health.ts).
  const router = new RouteGroups<State>();
  operatingRoutes(router as unknown as RouteGroups<{ requestId: string }>, service);
  // RFC 9728 protected-resource metadata for the two resources: the REST API and the MCP server.
  const resourceMetadata = (resource: string) => ({
    resource,
    authorization_servers: [service.config.baseUrl],
    scopes_supported: ['read', 'write', 'publish'],
    bearer_methods_supported: ['header'],
    resource_documentation: `${service.config.baseUrl}/v1/openapi.json`,
  });
  router.get('/.well-known/oauth-protected-resource/v1', (ctx) => {
    ctx.body = resourceMetadata(`${service.config.baseUrl}/v1`);
  });
  router.get('/.well-known/oauth-protected-resource/mcp', (ctx) => {
    ctx.body = resourceMetadata(service.config.mcpUrl);
  });
  // The OAuth server and the account and console pages load on the first request to one of their paths.
  app.use(lazyRoutes(service, LAZY_ROUTES));
  // A workflow's video-review hook: signed by the sender (Standard Webhooks), not by a credential.
  router.post('/v1/workflow-hooks/:hookId', async (ctx) => {
    if (Number(ctx.get('content-length') || 0) > HOOK_BODY_LIMIT) throw hookTooLarge();
    // Decoded from its Content-Encoding like every body; the signature is over the payload as sent before encoding.
    const raw = (await readBodyBytes(ctx.req, HOOK_BODY_LIMIT, hookTooLarge)).toString('utf8');
    const h = (name: string) => ctx.get(name) || undefined;
    const answer = await service.receiveWorkflowHook(
      String(ctx.params.hookId),
      { 'webhook-id': h('webhook-id'), 'webhook-timestamp': h('webhook-timestamp'), 'webhook-signature': h('webhook-signature') },
      raw,
    );
    ctx.status = answer.status;
    ctx.body = answer.body;
  });
  router.get('/v1/openapi.json', async (ctx) => {
    ctx.body = openapi ??= (await import('./openapi.js')).buildOpenApi(service.catalogue, service.schemas);
  });
  // A caller without a valid credential gets 401 before any body is read.
  const authenticateFirst: RouterMiddleware<State> = async (ctx, next) => {
    ctx.state.principal = await service.authenticate(ctx.get('authorization') || undefined, 'api');
    return next();
  };
  // The decision on an approval: internal (no MCP tool, no CLI command), on REST only from a signed-in person's session.
  const decide = service.catalogue.get('decide-approval');
  if (decide) router.post(DECISION_PATH, decisionCaller(service) as RouterMiddleware<State>, parseJsonBody, routeFor(service, decide));
  for (const op of service.catalogue.list()) {
    const path = '/v1' + op.path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
    const handler = routeFor(service, op);
    if (op.method === 'GET') router.get(path, handler);
    else router.add(op.method, path, [authenticateFirst, op.upload ? parseUploadBody(service, op.upload) : parseJsonBody, handler]);
  }
  app.use(router.routes());
  return app;
}
