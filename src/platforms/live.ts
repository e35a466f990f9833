// The live ad-platform adapters (PLATFORM_MODE=live): Meta's Graph Marketing API and TikTok's
// Business API, built once per process; what they share is in live-http.ts.

import type { Config } from '../config.js';
import type { LiveAdapterFactory } from './registry.js';
import { MetaAdapter } from './meta/adapter.js';
import { TikTokAdapter } from './tiktok/adapter.js';
import type { LiveHttpOptions } from './live-http.js';
import type { OutboundClient } from '../outbound/client.js';

export interface LiveAdaptersOptions extends LiveHttpOptions {
  /** Overrides of the versioned base URLs (defaults: META_GRAPH_URL, TIKTOK_API_URL). */
  metaGraphUrl?: string;
  tiktokApiUrl?: string;
}

/** The live adapters of PLATFORM_MODE=live: Meta's Graph Marketing API and TikTok's Business API, calling out through `outbound`. */
export function liveAdapters(config: Config, outbound: OutboundClient, options: LiveAdaptersOptions = {}): LiveAdapterFactory {
  const { metaGraphUrl, tiktokApiUrl, ...httpOptions } = options;
  // A platform call must end inside the service's own request budget, leaving time to answer.
  const http: LiveHttpOptions = {
    timeoutMs: Math.max(1_000, Math.floor(config.requestTimeoutMs / 2)),
    callDeadlineMs: Math.max(1_000, config.requestTimeoutMs - 5_000),
    ...httpOptions,
  };
  let meta: MetaAdapter | null = null;
  let tiktok: TikTokAdapter | null = null;
  return (platform) => {
    if (platform === 'meta') return (meta ??= new MetaAdapter(outbound, { baseUrl: metaGraphUrl ?? config.metaGraphUrl, ...http }));
    return (tiktok ??= new TikTokAdapter(outbound, { baseUrl: tiktokApiUrl ?? config.tiktokApiUrl, ...http }));
  };
}
