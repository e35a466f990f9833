// The one HTTP client that reaches outside services (webhook receivers, chat, the click tracker, ad
// platforms, model APIs, the CLI's service). Built on undici: a caller-given URL is checked on its
// text, then its host is resolved once when a connection is opened, every address is checked, and the
// socket goes to the checked address (TLS name and Host header stay the host name), so DNS cannot
// rebind it. It owns the timeout of an exchange, the deadline of a whole call (retries included),
// refuses to follow redirects (a 3xx is answered as it is) and caps the size of an answer.

import { Readable } from 'node:stream';
import type { Agent, Dispatcher, buildConnector } from 'undici';
import { isIpLiteral, normalizeHost, parseCallerUrl, type AddressRule, type Origin, type OutboundTarget } from './address-policy.js';
import { AddressRefused, callerUrlProblem, checkedAddress, systemResolver, type Resolver } from './resolver.js';
import { countOutboundRefused, type RefusalReason } from '../observability/metrics.js';
import { inSpan, tracingOn } from '../observability/tracing.js';

export type OutboundFailure = 'refused' | 'timeout' | 'network' | 'too_large';

/** A call that got no HTTP answer: refused by the address rule (nothing sent), timed out, failed to connect, or answered too much. */
export class OutboundError extends Error {
  constructor(
    readonly kind: OutboundFailure,
    message: string,
    /** Why a `refused` call was refused: the URL's text, an address the rule refuses, or a host that did not resolve. */
    readonly reason: RefusalReason | null = null,
  ) {
    super(message);
    this.name = kind === 'timeout' ? 'TimeoutError' : 'OutboundError';
  }
}

export interface OutboundRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Time for this exchange, answer included (default: the client's). 0: no limit. */
  timeoutMs?: number;
  /** Epoch ms by which the whole call must be over, its retries included: an exchange never runs past it. */
  deadline?: number;
  /** Largest answer body read (default: the client's); a longer one fails as `too_large`. */
  maxResponseBytes?: number;
  /**
   * A smaller cap once the answer's first bytes (at least HEAD_BYTES, or all of a shorter body) say
   * what it is: the body is cut as soon as it passes it (a failure thrown here ends the exchange).
   */
  capOf?: (head: Buffer) => number;
  /** How many leading bytes `capOf` sees (default 16). */
  headBytes?: number;
  /** Whether an answer of this status is worth reading: otherwise its body is dropped unread (empty). */
  readBodyOf?: (status: number) => boolean;
  signal?: AbortSignal;
}

/** How many leading bytes `capOf` sees unless the request says. */
const HEAD_BYTES = 16;

export interface OutboundResponse {
  status: number;
  headers: Headers;
  body: Buffer;
  durationMs: number;
  text(): string;
}

export interface OutboundOptions extends AddressRule {
  /** Resolves caller hosts (default: the system resolver); tests pass a fake one. */
  resolve?: Resolver;
  /** Default time of one exchange (10 s). */
  timeoutMs?: number;
  /** Default answer cap (5 MB). */
  maxResponseBytes?: number;
  /** Time to open a connection (10 s). */
  connectTimeoutMs?: number;
}

/** Defaults of a fetch handed to an SDK (openai, the MCP client transport). */
export interface FetchDefaults {
  /** Time of one exchange up to the answer's last byte; 0: none (streams). */
  timeoutMs?: number;
  /** Epoch ms the whole call must end by (the SDK's own retries included). */
  deadline?: number;
  maxResponseBytes?: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;
/** Caller URLs whose parse is kept (the oldest dropped first). */
const PARSED_URLS_KEPT = 1_024;
const DEFAULT_MAX_BYTES = 5 * 1024 * 1024;

interface Opened {
  status: number;
  headers: Headers;
  body: Readable;
  started: number;
  /** True once the exchange's own time ran out. */
  expired(): boolean;
  limit: number;
  /** Stops the exchange's timer and signal listeners (when the body is done with). */
  release(): void;
}

function headersOf(raw: Record<string, string | string[] | undefined>): Headers {
  const h = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) h.append(name, v);
  }
  return h;
}

function causeOf(err: unknown): string {
  const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  return e?.cause?.code ?? e?.code ?? e?.cause?.message ?? e?.message ?? String(err);
}

export class OutboundClient {
  private readonly resolve: Resolver;
  private readonly connectTimeoutMs: number;
  /** undici and the two agents, loaded on the first send (not at start-up). */
  private undici?: Promise<{ request: typeof import('undici').request; operator: Agent; caller: Agent }>;
  readonly rule: AddressRule;
  private readonly timeoutMs: number;
  private readonly maxBytes: number;

  constructor(options: OutboundOptions) {
    this.rule = { allowPrivate: options.allowPrivate };
    this.resolve = options.resolve ?? systemResolver;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_BYTES;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
  }

  private agents(): Promise<{ request: typeof import('undici').request; operator: Agent; caller: Agent }> {
    return (this.undici ??= import('undici').then(({ Agent, buildConnector, request }) => {
      const timeout = this.connectTimeoutMs;
      const base = buildConnector({ timeout });
      // Caller hosts: resolved once per new connection, every address checked, the socket sent to the checked one.
      const checked: buildConnector.connector = (opts, callback) => {
        const host = normalizeHost(opts.hostname);
        checkedAddress(host, this.rule, this.resolve).then(
          (address) => base({ ...opts, hostname: address, servername: opts.servername ?? (isIpLiteral(host) ? undefined : host) }, callback),
          (err: Error) => callback(err, null),
        );
      };
      const common = { keepAliveTimeout: 4_000, connections: 32, headersTimeout: 0, bodyTimeout: 0 };
      return { request, operator: new Agent({ ...common, connect: { timeout } }), caller: new Agent({ ...common, connect: checked }) };
    }));
  }

  /** Why a caller-given URL may not be saved (400 validation_failed naming the field), or null. */
  urlProblem(raw: string): Promise<string | null> {
    return callerUrlProblem(raw, this.rule, this.resolve);
  }

  /** The address a send to a caller target would connect to, checked as a send checks it; throws OutboundError `refused`. */
  async vet(target: OutboundTarget): Promise<string> {
    const url = this.urlOf(target);
    try {
      return await checkedAddress(normalizeHost(url.hostname), this.rule, this.resolve);
    } catch (err) {
      throw new OutboundError('refused', (err as Error).message, err instanceof AddressRefused ? err.reason : 'address');
    }
  }

  /** Caller URLs already parsed and checked on their text (the rule is the client's, fixed): a webhook endpoint's URL is parsed once, not per message. */
  private readonly parsedCallerUrls = new Map<string, ReturnType<typeof parseCallerUrl>>();

  private urlOf(target: OutboundTarget): URL {
    if (target.origin === 'caller') {
      let parsed = this.parsedCallerUrls.get(target.url);
      if (!parsed) {
        parsed = parseCallerUrl(target.url, this.rule);
        if (this.parsedCallerUrls.size >= PARSED_URLS_KEPT) this.parsedCallerUrls.delete(this.parsedCallerUrls.keys().next().value as string);
        this.parsedCallerUrls.set(target.url, parsed);
      }
      if (!parsed.ok) throw new OutboundError('refused', `refused: ${target.url} ${parsed.problem}; nothing was sent`, 'url');
      return parsed.url;
    }
    let url: URL;
    try {
      url = new URL(target.url);
    } catch {
      throw new OutboundError('network', `${target.url} is not an absolute URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutboundError('network', `${target.url} is not an http(s) URL`);
    return url;
  }

  /** Opens an exchange; a refusal (nothing sent) is counted by its reason. */
  private async open(target: OutboundTarget, req: OutboundRequest): Promise<Opened> {
    try {
      return await this.openChecked(target, req);
    } catch (err) {
      if (err instanceof OutboundError && err.kind === 'refused') countOutboundRefused(err.reason ?? 'address');
      throw err;
    }
  }

  private async openChecked(target: OutboundTarget, req: OutboundRequest): Promise<Opened> {
    const url = this.urlOf(target);
    const started = Date.now();
    const own = req.timeoutMs ?? this.timeoutMs;
    const left = req.deadline === undefined ? Infinity : req.deadline - started;
    if (left <= 0) throw new OutboundError('timeout', `the call's deadline passed before ${url.origin} was asked; nothing was sent`);
    const limit = Math.min(own > 0 ? own : Infinity, left);
    const controller = new AbortController();
    let timedOut = false;
    const timer = Number.isFinite(limit)
      ? setTimeout(() => {
          timedOut = true;
          controller.abort();
        }, limit)
      : null;
    const onAbort = () => controller.abort();
    req.signal?.addEventListener('abort', onAbort, { once: true });
    const release = () => {
      if (timer) clearTimeout(timer);
      req.signal?.removeEventListener('abort', onAbort);
    };
    let res: Dispatcher.ResponseData;
    try {
      if (req.signal?.aborted) throw new OutboundError('timeout', 'the call was cancelled before it was sent');
      const undici = await this.agents();
      res = await undici.request(url, {
        dispatcher: target.origin === 'caller' ? undici.caller : undici.operator,
        method: (req.method ?? 'GET') as Dispatcher.HttpMethod,
        headers: req.headers,
        body: req.body,
        signal: controller.signal,
      });
    } catch (err) {
      release();
      throw this.failure(err, url, limit, timedOut);
    }
    return { status: res.statusCode, headers: headersOf(res.headers), body: res.body, started, release, expired: () => timedOut, limit };
  }

  private failure(err: unknown, url: URL, limit: number, timedOut: boolean): OutboundError {
    if (err instanceof OutboundError) return err;
    const refused =
      err instanceof AddressRefused ? err : (err as { cause?: unknown })?.cause instanceof AddressRefused ? (err as { cause: AddressRefused }).cause : null;
    if (refused) return new OutboundError('refused', refused.message, refused.reason);
    if (timedOut) return new OutboundError('timeout', `${url.origin} did not answer within ${Math.round(limit)} ms`);
    if ((err as Error)?.name === 'AbortError' || (err as { code?: string })?.code === 'UND_ERR_ABORTED')
      return new OutboundError('timeout', 'the call was cancelled');
    return new OutboundError('network', `the connection to ${url.origin} failed (${causeOf(err)})`);
  }

  /** One exchange, its answer read whole (up to the size cap). Throws OutboundError when there is no HTTP answer. */
  request(target: OutboundTarget, req: OutboundRequest = {}): Promise<OutboundResponse> {
    // The span's host is parsed from the URL only when spans are exported (a webhook thread sends thousands a second).
    return tracingOn() ? inSpan(...spanOf(target.url, req.method), () => this.exchange(target, req)) : this.exchange(target, req);
  }

  private async exchange(target: OutboundTarget, req: OutboundRequest): Promise<OutboundResponse> {
    const opened = await this.open(target, req);
    let cap = req.maxResponseBytes ?? this.maxBytes;
    let refusal: unknown = null;
    const chunks: Buffer[] = [];
    let size = 0;
    const tooLarge = () => new OutboundError('too_large', `the answer of ${new URL(target.url).origin} is larger than ${cap} bytes`);
    try {
      // Counted as it arrives: a body declared past the cap is not read at all, nor one not worth reading.
      const declared = Number(opened.headers.get('content-length') ?? NaN);
      const unread = req.readBodyOf && !req.readBodyOf(opened.status);
      if (unread || (Number.isFinite(declared) && declared > cap)) {
        // Dropped unread: its abort is the expected end, not an error anyone waits for.
        opened.body.on('error', () => {});
        opened.body.destroy();
        if (!unread) throw tooLarge();
      } else {
        let sized = !req.capOf;
        for await (const chunk of opened.body) {
          size += (chunk as Buffer).length;
          chunks.push(chunk as Buffer);
          if (!sized && size >= (req.headBytes ?? HEAD_BYTES)) {
            sized = true;
            try {
              cap = Math.min(cap, req.capOf!(Buffer.concat(chunks)));
            } catch (err) {
              refusal = err;
              break;
            }
          }
          if (size > cap) {
            opened.body.destroy();
            throw tooLarge();
          }
        }
        if (!sized && size) {
          try {
            req.capOf!(Buffer.concat(chunks));
          } catch (err) {
            refusal = err;
          }
        }
      }
    } catch (err) {
      throw this.failure(err, new URL(target.url), opened.limit, opened.expired());
    } finally {
      opened.release();
    }
    // What capOf refused, as it threw it.
    if (refusal) throw refusal;
    const body = Buffer.concat(chunks);
    return { status: opened.status, headers: opened.headers, body, durationMs: Date.now() - opened.started, text: () => body.toString('utf8') };
  }

  /**
   * A WHATWG fetch for SDKs (openai, the MCP client transport) that goes through this client: the
   * same address rule for `origin`, no redirects, the answer streamed with the size cap, and the
   * deadline of `defaults` over every exchange the SDK makes (its retries included).
   */
  fetch(origin: Origin, defaults: FetchDefaults = {}): typeof globalThis.fetch {
    return async (input: string | URL | Request, init?: RequestInit) => {
      const request = input instanceof Request ? input : null;
      const url = request ? request.url : String(input);
      const headers: Record<string, string> = {};
      new Headers(init?.headers ?? request?.headers).forEach((value, name) => {
        headers[name] = value;
      });
      const body = await bodyBytes(init?.body ?? (request?.body ? await request.arrayBuffer() : null), headers);
      const method = init?.method ?? request?.method ?? 'GET';
      // The span covers the exchange up to the answer's headers; the SDK reads the body as it streams.
      const opened = await inSpan(...spanOf(url, method), () =>
        this.open(
          { url, origin },
          {
            method,
            headers,
            body,
            timeoutMs: defaults.timeoutMs ?? this.timeoutMs,
            deadline: defaults.deadline,
            signal: init?.signal ?? request?.signal ?? undefined,
          },
        ),
      );
      const cap = defaults.maxResponseBytes ?? this.maxBytes;
      const empty = [101, 204, 205, 304].includes(opened.status) || (init?.method ?? request?.method) === 'HEAD';
      if (empty) {
        opened.body.resume();
        opened.release();
        return new Response(null, { status: opened.status, headers: opened.headers });
      }
      return new Response(cappedStream(opened, cap), { status: opened.status, headers: opened.headers });
    };
  }

  /** Closes every pooled connection. */
  async close(): Promise<void> {
    if (!this.undici) return;
    const { operator, caller } = await this.undici;
    await Promise.all([operator.close(), caller.close()]);
  }
}

/** The name and attributes of an outbound call's span: its method and host (never its path or query). */
function spanOf(url: string, method = 'GET'): [string, { 'http.request.method': string; 'server.address': string }] {
  let host = '';
  try {
    host = new URL(url).host;
  } catch {
    // Not a URL: the call fails as such; the span says so by its empty host.
  }
  return [`outbound ${method}`, { 'http.request.method': method, 'server.address': host }];
}

/** A request body as bytes; form data, blobs and search params set their own content type. */
async function bodyBytes(body: BodyInit | ArrayBuffer | null | undefined, headers: Record<string, string>): Promise<string | Uint8Array | undefined> {
  if (body === null || body === undefined) return undefined;
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  // FormData, Blob, URLSearchParams, streams: serialised by the platform's own Response, no connection involved.
  const serialised = new Response(body as BodyInit);
  const type = serialised.headers.get('content-type');
  if (type && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = type;
  return new Uint8Array(await serialised.arrayBuffer());
}

/** The answer body as a web stream that errors past `cap` bytes and releases the exchange when done. */
function cappedStream(opened: Opened, cap: number): ReadableStream<Uint8Array> {
  const chunks = opened.body[Symbol.asyncIterator]();
  let size = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done } = await chunks.next();
        if (done) {
          opened.release();
          controller.close();
          return;
        }
        size += (value as Buffer).length;
        if (size > cap) {
          opened.body.destroy();
          opened.release();
          controller.error(new OutboundError('too_large', `the answer is larger than ${cap} bytes`));
          return;
        }
        controller.enqueue(new Uint8Array(value as Buffer));
      } catch (err) {
        opened.release();
        controller.error(err);
      }
    },
    async cancel() {
      opened.body.destroy();
      opened.release();
    },
  });
}
