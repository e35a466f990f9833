// A TikTok Business API client over one versioned base URL: JSON requests (multipart/form-data for
// file uploads) with the Access-Token header, answers `{code, message, request_id, data}` turned
// into data or a PlatformError.

import crypto from 'node:crypto';
import { namingAccount, PlatformError, type AdAccount } from '../port.js';
import type { LiveHttp } from '../live-http.js';
import { httpError, tiktokError } from './errors.js';

export type TikTokParams = Record<string, unknown>;

/** A file part of a multipart upload. */
export interface UploadFile {
  field: string;
  name: string;
  mime: string;
  bytes: Buffer;
}

/** A multipart/form-data body of string fields and one file, and its content type. */
function formData(fields: Record<string, string>, file: UploadFile | null): { body: Buffer; contentType: string } {
  const boundary = `----tiktok-${crypto.randomBytes(12).toString('hex')}`;
  const parts: Buffer[] = [];
  const quoted = (v: string) => v.replace(/["\r\n]/g, '_');
  for (const [name, value] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${quoted(name)}"\r\n\r\n${value}\r\n`));
  }
  if (file) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(file.field)}"; filename="${quoted(file.name)}"\r\nContent-Type: ${file.mime}\r\n\r\n`,
      ),
      file.bytes,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** The return code of an answer some of whose items failed (listed in its data). */
const PARTIAL_SUCCESS = 20001;

/** The TikTok advertiser id of a service ad account (biz_<advertiser_id>). */
export function advertiserIdOf(account: AdAccount): string {
  return account.accountId.replace(/^biz_/, '');
}

export class TikTokClient {
  constructor(
    private readonly baseUrl: string,
    private readonly http: LiveHttp,
    private readonly throttleWaitMs: number,
  ) {}

  /** One call (single attempt); GET parameters that are not strings travel as JSON, as the API expects. */
  async call(account: AdAccount, method: 'GET' | 'POST', path: string, params: TikTokParams): Promise<any> {
    const withAdvertiser = { advertiser_id: advertiserIdOf(account), ...params };
    let url = `${this.baseUrl}/${path.replace(/^\/+/, '')}`;
    if (method === 'GET') {
      const query = new URLSearchParams();
      for (const [key, value] of Object.entries(withAdvertiser)) {
        if (value !== undefined && value !== null) query.set(key, typeof value === 'string' ? value : JSON.stringify(value));
      }
      url += `?${query}`;
      return this.exchange(account, url, { method });
    }
    return this.exchange(account, url, { method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(withAdvertiser) });
  }

  /** One multipart/form-data upload (single attempt): string fields and a file (File Image/Video Upload). */
  async upload(account: AdAccount, path: string, fields: Record<string, string>, file: UploadFile | null): Promise<any> {
    const { body, contentType } = formData({ advertiser_id: advertiserIdOf(account), ...fields }, file);
    return this.exchange(account, `${this.baseUrl}/${path.replace(/^\/+/, '')}`, { method: 'POST', headers: { 'Content-Type': contentType }, body });
  }

  private async exchange(
    account: AdAccount,
    url: string,
    init: { method: string; headers?: Record<string, string>; body?: string | Uint8Array },
  ): Promise<any> {
    if (!account.accessToken) {
      throw new PlatformError('authentication', `Ad account ${account.accountId} has no access token.`, { accountId: account.accountId, noToken: true });
    }
    const reply = await this.http.send(url, { ...init, headers: { 'Access-Token': account.accessToken, ...(init.headers ?? {}) } });
    const answer = reply.body as { code?: unknown; message?: unknown; data?: unknown } | undefined;
    if (reply.status !== 200 || !answer || typeof answer.code !== 'number') {
      throw namingAccount(httpError(reply.status === 200 ? 502 : reply.status, reply.headers.get('retry-after'), this.throttleWaitMs), account.accountId);
    }
    // 20001, partial success: the data says which items failed (a bulk status update's `failures`).
    if (answer.code === PARTIAL_SUCCESS && answer.data && typeof answer.data === 'object') return answer.data;
    if (answer.code !== 0) throw namingAccount(tiktokError(answer.code, String(answer.message ?? ''), this.throttleWaitMs), account.accountId);
    return answer.data ?? {};
  }
}
