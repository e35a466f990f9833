// A TikTok Business API client over one versioned base URL: JSON requests with the Access-Token
// header, answers `{code, message, request_id, data}` turned into data or a PlatformError.

import { PlatformError, type AdAccount } from '../port.js';
import type { LiveHttp } from '../live-http.js';
import { httpError, tiktokError } from './errors.js';

export type TikTokParams = Record<string, unknown>;

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
    if (!account.accessToken) {
      throw new PlatformError('authentication', `Ad account ${account.accountId} has no access token; reconnect it to publish in live mode.`);
    }
    const headers: Record<string, string> = { 'Access-Token': account.accessToken };
    const withAdvertiser = { advertiser_id: advertiserIdOf(account), ...params };
    let url = `${this.baseUrl}/${path.replace(/^\/+/, '')}`;
    let body: string | undefined;
    if (method === 'GET') {
      const query = new URLSearchParams();
      for (const [key, value] of Object.entries(withAdvertiser)) {
        if (value !== undefined && value !== null) query.set(key, typeof value === 'string' ? value : JSON.stringify(value));
      }
      url += `?${query}`;
    } else {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(withAdvertiser);
    }
    const reply = await this.http.send(url, { method, headers, body });
    const answer = reply.body as { code?: unknown; message?: unknown; data?: unknown } | undefined;
    if (reply.status !== 200 || !answer || typeof answer.code !== 'number') {
      throw httpError(reply.status === 200 ? 502 : reply.status, reply.headers.get('retry-after'), this.throttleWaitMs);
    }
    // 20001, partial success: the data says which items failed (a bulk status update's `failures`).
    if (answer.code === PARTIAL_SUCCESS && answer.data && typeof answer.data === 'object') return answer.data;
    if (answer.code !== 0) throw tiktokError(answer.code, String(answer.message ?? ''), this.throttleWaitMs);
    return answer.data ?? {};
  }
}
