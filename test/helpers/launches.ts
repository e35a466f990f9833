// Publishable launches over REST for the tests and benchmarks that publish at scale or across
// processes: the world and property sets of docs/launches.md (test/helpers/example-world.ts,
// shared with the tests that replay it), a launch of any size built node by node, and the publish
// call. Everything goes through the HTTP surface of a server given by its base URL, so it works the
// same against a server in this process and a `svc-server` child process.

import { adProps, adsetProps, campaignProps, exampleWorld } from './example-world.js';
import { makePng } from './png.js';

export { adProps, adsetProps, campaignProps, exampleWorld };

/**
 * The example world for live mode: the same organization, brand, account and keys, with
 * `accessToken` stored (encrypted) on act_1001. Bootstrapping it needs TOKEN_ENCRYPTION_KEY.
 */
export function liveExampleWorld(ceilingDollars: number, accessToken: string): ReturnType<typeof exampleWorld> {
  const world = exampleWorld(ceilingDollars);
  for (const brand of world.organizations[0].brands) for (const account of brand.adAccounts) Object.assign(account, { accessToken });
  return world;
}

export type { HttpReply } from './http.js';
import { requestJson, type HttpReply } from './http.js';

/** Runs `fn` over `items` with at most `limit` calls in flight; results in input order. */
export async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** The calls of one key on one brand: `/v1/brands/{brandId}...`. */
export class BrandClient {
  constructor(
    readonly baseUrl: string,
    readonly key: string,
    readonly brandId: number,
  ) {}

  /** A client for the same key and brand on another server (e.g. a restarted process). */
  on(baseUrl: string): BrandClient {
    return new BrandClient(baseUrl, this.key, this.brandId);
  }

  api<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<HttpReply<T>> {
    return requestJson<T>(this.baseUrl, method, `/v1/brands/${this.brandId}${path}`, { key: this.key, body, headers });
  }

  /** Uploads a 1080x1080 PNG (multipart, field `file`); returns the creative id. */
  async uploadCreative(name = 'hero.png'): Promise<number> {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(makePng(1080, 1080))], { type: 'image/png' }), name);
    const res = await fetch(`${this.baseUrl}/v1/brands/${this.brandId}/creatives`, {
      method: 'POST',
      headers: { authorization: `Bearer ${this.key}` },
      body: form,
    });
    const text = await res.text();
    if (res.status !== 201) throw new Error(`uploading a creative answered ${res.status}: ${text.slice(0, 500)}`);
    return (JSON.parse(text) as { id: number }).id;
  }

  /** launch-campaign: preview (`confirm: false`) or publish, with `idempotencyKey`. */
  publish(launchId: string, idempotencyKey: string, confirm = true): Promise<HttpReply> {
    return this.api('POST', `/launches/${launchId}/publish`, confirm ? { confirm: true } : {}, { 'Idempotency-Key': idempotencyKey });
  }

  /** The launch with its whole tree. */
  launch(launchId: string): Promise<HttpReply> {
    return this.api('GET', `/launches/${launchId}`);
  }
}

export interface LaunchShape {
  /** Ad sets under the one campaign (default 1). */
  adSets?: number;
  /** Ads under each ad set (default 1). */
  adsPerSet?: number;
  /** Creative every ad shows (required: ads need one to publish). */
  creativeId: number;
  title?: string;
  /** The campaign's daily budget in cents (default the contract's 5000). */
  dailyBudget?: number;
  /** Node creations in flight at once (default 8). */
  concurrency?: number;
  /** Merged over the contract's campaign and ad-set properties (another platform's objective, goal, billing). */
  campaign?: Record<string, unknown>;
  adset?: Record<string, unknown>;
}

export interface BuiltLaunch {
  launchId: string;
  campaignId: string;
  adsetIds: string[];
  /** Ads per ad set, in ad-set order. */
  adIds: string[][];
  /** Every node id (campaign, ad sets, ads): the markers of the platform objects a publish creates. */
  nodeIds: string[];
  /** Objects a publish creates: 1 campaign + ad sets + ads. */
  objectCount: number;
  /** What the publish counts against the ceiling (the campaign budget). */
  countedCents: number;
}

function created(reply: HttpReply, what: string): string {
  if (reply.status !== 201) throw new Error(`creating ${what} answered ${reply.status}: ${JSON.stringify(reply.body).slice(0, 500)}`);
  return String(reply.body.id);
}

/** Creates a draft launch with one campaign (the contract's properties), `adSets` ad sets and `adsPerSet` ads each. */
export async function buildLaunch(client: BrandClient, shape: LaunchShape): Promise<BuiltLaunch> {
  const adSets = shape.adSets ?? 1;
  const adsPerSet = shape.adsPerSet ?? 1;
  const concurrency = shape.concurrency ?? 8;
  const budget = shape.dailyBudget ?? campaignProps.budget.dailyAmount;
  const launchId = await created(await client.api('POST', '/launches', { title: shape.title ?? 'Spring sale' }), 'a launch');
  const node = (nodeType: string, parentId: string | null, properties: Record<string, unknown>) =>
    client.api('POST', `/launches/${launchId}/nodes`, { nodeType, ...(parentId ? { parentId } : {}), properties });
  const campaignId = await created(await node('campaign', null, { ...campaignProps, ...shape.campaign, budget: { dailyAmount: budget } }), 'the campaign');
  const adsetIds = await mapLimit(
    Array.from({ length: adSets }, (_, i) => i),
    concurrency,
    async (i) => created(await node('adset', campaignId, { ...adsetProps, ...shape.adset, name: `${adsetProps.name} #${i + 1}` }), `ad set ${i + 1}`),
  );
  const pairs = adsetIds.flatMap((s, i) => Array.from({ length: adsPerSet }, (_, j) => ({ s, i, j })));
  const flatAds = await mapLimit(pairs, concurrency, async ({ s, i, j }) =>
    created(await node('ad', s, { ...adProps, name: `Hero ${i + 1}.${j + 1}`, creativeId: shape.creativeId }), `ad ${i + 1}.${j + 1}`),
  );
  const adIds = adsetIds.map((_, i) => flatAds.slice(i * adsPerSet, (i + 1) * adsPerSet));
  return {
    launchId,
    campaignId,
    adsetIds,
    adIds,
    nodeIds: [campaignId, ...adsetIds, ...flatAds],
    objectCount: 1 + adSets + adSets * adsPerSet,
    countedCents: budget,
  };
}

/** Polls `check` every `everyMs` until it is true; throws `what` after `timeoutMs`. */
export async function waitUntil(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000, everyMs = 20): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
