// Builders for launch tests over REST: a brand-scoped request function, creative upload, and a
// complete campaign → ad set → ad tree built from the property sets of docs/launches.md.

import { adProps, adsetProps, campaignProps } from './example-world.js';
import { makePng } from './png.js';
import type { Reply, World } from './world.js';

export type Props = Record<string, unknown>;

// The property sets of the launch example (docs/launches.md, step 3), shared with the
// tests that replay it. Amounts are cents; the schedule starts in 2030.
export { adProps, adsetProps, campaignProps } from './example-world.js';

/** A request to `/v1/brands/{brandId}<path>` with one key. */
export type Api = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<Reply>;

export function brandApi(w: World, key: string, brandId: number): Api {
  return (method, path, body, headers = {}) => w.request(method, `/v1/brands/${brandId}${path}`, { key, body, headers });
}

let idemSeq = 0;
/** A fresh Idempotency-Key header. */
export function idem(prefix = 'launch-test'): Record<string, string> {
  return { 'Idempotency-Key': `${prefix}-${process.pid}-${Date.now()}-${idemSeq++}` };
}

function must(reply: Reply, status: number, what: string): Reply {
  if (reply.status !== status) throw new Error(`${what}: expected ${status}, got ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply;
}

/** Uploads a real PNG as multipart/form-data and returns the creative id. */
export async function uploadCreative(w: World, key: string, brandId: number, name = 'hero.png'): Promise<number> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(makePng(1080, 1080))], { type: 'image/png' }), name);
  const res = await fetch(`${w.url}/v1/brands/${brandId}/creatives`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
  const body = await res.json();
  if (res.status !== 201) throw new Error(`creative upload: ${res.status} ${JSON.stringify(body)}`);
  return body.id as number;
}

export async function createLaunch(api: Api, title = 'Test launch', description?: string): Promise<string> {
  return must(await api('POST', '/launches', { title, description }), 201, 'create launch').body.id;
}

/** Adds a node and returns its id (201 required). */
export async function addNode(api: Api, launchId: string, nodeType: 'campaign' | 'adset' | 'ad', properties: Props, parentId?: string): Promise<string> {
  return must(await api('POST', `/launches/${launchId}/nodes`, { nodeType, parentId, properties }), 201, `add ${nodeType}`).body.id;
}

export interface TreeOptions {
  title?: string;
  /** Merged over campaignProps; an undefined value drops the setting. */
  campaign?: Props;
  adset?: Props;
  ad?: Props;
  /** Ads in the ad set (default 1); the n-th is named `<name> #n` when there are several. */
  ads?: number;
  /** Attached to every ad unless `ad.creativeId` says otherwise. */
  creativeId?: number;
}

export interface BuiltLaunch {
  launchId: string;
  campaignId: string;
  adsetId: string;
  adIds: string[];
}

/** A launch with one campaign, one ad set and `ads` ads, from the example's property sets. */
export async function buildLaunch(api: Api, opts: TreeOptions = {}): Promise<BuiltLaunch> {
  const launchId = await createLaunch(api, opts.title ?? 'Built launch');
  const campaignId = await addNode(api, launchId, 'campaign', { ...campaignProps, ...(opts.campaign ?? {}) });
  const adsetId = await addNode(api, launchId, 'adset', { ...adsetProps, ...(opts.adset ?? {}) }, campaignId);
  const adIds: string[] = [];
  const n = opts.ads ?? 1;
  for (let i = 0; i < n; i++) {
    const base: Props = { ...adProps, ...(opts.creativeId !== undefined ? { creativeId: opts.creativeId } : {}), ...(opts.ad ?? {}) };
    if (n > 1) base.name = `${base.name ?? 'Ad'} #${i + 1}`;
    adIds.push(await addNode(api, launchId, 'ad', base, adsetId));
  }
  return { launchId, campaignId, adsetId, adIds };
}

/** Publishes with confirm: true (200 required) and returns the answer. */
export async function publish(api: Api, launchId: string): Promise<Reply> {
  return must(await api('POST', `/launches/${launchId}/publish`, { confirm: true }, idem('publish')), 200, 'publish');
}

/** The planFingerprint of the launch's preview now: what an MCP client that cannot ask its user confirms a money call with. */
export async function planFingerprintOf(api: Api, launchId: string): Promise<string> {
  return must(await api('POST', `/launches/${launchId}/publish`, {}, idem('preview')), 200, 'preview').body.planFingerprint;
}

/**
 * A draft launch of one campaign holding `adSets` ad sets of 4 ads each (the first built, the rest
 * duplicated from it): one campaign's JSON far over what one MCP answer carries. Returns its id.
 */
export async function oneCampaignLaunch(w: World, brandId: number, adSets = 60, key = w.key('acme', 'ci')): Promise<string> {
  const api = brandApi(w, key, brandId);
  const creativeId = await uploadCreative(w, key, brandId, 'wide.png');
  const built = await buildLaunch(api, { title: `One campaign of ${adSets} ad sets`, creativeId, ads: 4 });
  for (let left = adSets - 1; left > 0; left -= 50) {
    const count = Math.min(50, left);
    must(await api('POST', `/launches/${built.launchId}/nodes/${built.adsetId}/duplicate`, { nodeType: 'adset', count }, idem('dup')), 200, 'duplicate');
  }
  return built.launchId;
}
