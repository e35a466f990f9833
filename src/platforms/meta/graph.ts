// A Graph API client over one versioned base URL: single GET/POST calls and the batch endpoint
// (up to 50 requests in one HTTP round trip), each answer turned into data or a PlatformError.

import crypto from 'node:crypto';
import { namingAccount, PlatformError, type AdAccount } from '../port.js';
import type { LiveHttp } from '../live-http.js';
import { LEAD_TERMS_NOT_ACCEPTED, graphError } from './errors.js';
import type { GraphParams } from './mapping.js';

/** Graph's limit of requests in one batch. */
export const BATCH_LIMIT = 50;

export interface BatchRequest {
  method: 'GET' | 'POST' | 'DELETE';
  /** Path (and query, for GET) relative to the versioned base URL. */
  relativeUrl: string;
  params?: GraphParams;
}

export type BatchAnswer = { ok: true; body: any } | { ok: false; error: PlatformError };

/** Graph's form encoding: strings as they are, everything else as JSON. */
export function encodeParams(params: GraphParams): string {
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null) continue;
    form.set(key, typeof value === 'string' ? value : JSON.stringify(value));
  }
  return form.toString();
}

function tokenOf(account: AdAccount): string {
  if (!account.accessToken) {
    throw new PlatformError('authentication', `Ad account ${account.accountId} has no access token.`, { accountId: account.accountId, noToken: true });
  }
  return account.accessToken;
}

function headerLookup(headers: unknown): (name: string) => string | undefined {
  const list = Array.isArray(headers) ? (headers as Array<{ name?: string; value?: string }>) : [];
  return (name) => list.find((h) => h?.name?.toLowerCase() === name)?.value;
}

export class GraphClient {
  constructor(
    private readonly baseUrl: string,
    private readonly http: LiveHttp,
  ) {}

  private async exchange(method: 'GET' | 'POST', path: string, params: GraphParams, account: AdAccount): Promise<any> {
    const token = tokenOf(account);
    const encoded = encodeParams({ ...params, access_token: token });
    const url = `${this.baseUrl}/${path}`;
    const reply =
      method === 'GET'
        ? await this.http.send(`${url}?${encoded}`, { method })
        : await this.http.send(url, { method, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: encoded });
    if (reply.status >= 200 && reply.status < 300 && reply.body !== undefined && !(reply.body as { error?: unknown })?.error) return reply.body;
    throw namingAccount(
      graphError(reply.status === 200 ? 500 : reply.status, reply.body, (name) => reply.headers.get(name)),
      account.accountId,
    );
  }

  /** One GET (single attempt). */
  get(account: AdAccount, path: string, params: GraphParams = {}): Promise<any> {
    return this.exchange('GET', path, params, account);
  }

  /** One POST (single attempt). */
  post(account: AdAccount, path: string, params: GraphParams = {}): Promise<any> {
    return this.exchange('POST', path, params, account);
  }

  /**
   * One multipart/form-data POST (single attempt): text `fields` and one file part, as Graph takes a
   * video's `source` (https://developers.facebook.com/docs/marketing-api/reference/ad-account/advideos/).
   */
  async upload(
    account: AdAccount,
    path: string,
    fields: Record<string, string>,
    file: { field: string; name: string; mime: string; bytes: Buffer },
  ): Promise<any> {
    const boundary = `----svc${crypto.randomBytes(12).toString('hex')}`;
    const parts: Buffer[] = [];
    for (const [name, value] of Object.entries({ ...fields, access_token: tokenOf(account) })) {
      parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
    }
    const filename = file.name.replace(/["\r\n]/g, '_');
    parts.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${file.field}"; filename="${filename}"\r\nContent-Type: ${file.mime}\r\n\r\n`),
    );
    parts.push(file.bytes, Buffer.from(`\r\n--${boundary}--\r\n`));
    const reply = await this.http.send(`${this.baseUrl}/${path}`, {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: Buffer.concat(parts),
    });
    if (reply.status >= 200 && reply.status < 300 && reply.body !== undefined && !(reply.body as { error?: unknown })?.error) return reply.body;
    throw graphError(reply.status === 200 ? 500 : reply.status, reply.body, (name) => reply.headers.get(name));
  }

  /**
   * Up to BATCH_LIMIT requests in one round trip (single attempt). A failure of the whole call
   * throws; each request's own failure comes back as its answer.
   */
  async batch(account: AdAccount, requests: BatchRequest[]): Promise<BatchAnswer[]> {
    if (requests.length > BATCH_LIMIT) throw new Error(`A Graph batch holds at most ${BATCH_LIMIT} requests.`);
    const batch = requests.map((r) => {
      if (r.method !== 'POST') {
        const query = r.params && Object.keys(r.params).length ? encodeParams(r.params) : '';
        return { method: r.method, relative_url: query ? `${r.relativeUrl}${r.relativeUrl.includes('?') ? '&' : '?'}${query}` : r.relativeUrl };
      }
      return { method: r.method, relative_url: r.relativeUrl, body: encodeParams(r.params ?? {}) };
    });
    const answers = await this.post(account, '', { batch, include_headers: 'true' });
    if (!Array.isArray(answers) || answers.length !== requests.length) {
      throw new PlatformError('transient', 'The ad platform sent an incomplete batch answer.');
    }
    return answers.map((answer, i): BatchAnswer => {
      if (!answer) return { ok: false, error: new PlatformError('transient', 'The ad platform did not finish this request of the batch.') };
      let body: unknown;
      try {
        body = typeof answer.body === 'string' && answer.body ? JSON.parse(answer.body) : answer.body;
      } catch {
        body = undefined;
      }
      const code = Number(answer.code);
      if (code >= 200 && code < 300 && body !== undefined && !(body as { error?: unknown })?.error) return { ok: true, body };
      return {
        ok: false,
        error: refusalOf(graphError(code >= 200 && code < 300 ? 500 : code, body, headerLookup(answer.headers)), account, requests[i].params),
      };
    });
  }
}

/** The Facebook Page a create names: an ad set's promoted object's, else its creative's story's. */
function pageOf(params: GraphParams | undefined): string | undefined {
  const p = params ?? {};
  const promoted = (p.promoted_object ?? {}) as Record<string, unknown>;
  const story = (((p.creative ?? {}) as Record<string, unknown>).object_story_spec ?? p.object_story_spec ?? {}) as Record<string, unknown>;
  const page = promoted.page_id ?? story.page_id;
  return page === undefined ? undefined : String(page);
}

/** A batch item's refusal naming its ad account, and its Page when Meta says the Page has not accepted the lead ads terms. */
function refusalOf(err: PlatformError, account: AdAccount, params: GraphParams | undefined): PlatformError {
  const named = namingAccount(err, account.accountId) as PlatformError;
  const pageId = named.extra.platformSubcode === LEAD_TERMS_NOT_ACCEPTED ? pageOf(params) : undefined;
  return pageId ? new PlatformError(named.kind, named.message, { ...named.extra, pageId }) : named;
}
