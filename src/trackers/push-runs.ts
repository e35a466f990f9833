// A tracker push run: one push cycle as a resource (contract: `run-tracker-push` answers 202 with it,
// `get-tracker-push-run` reads it). The cycle writes its progress to it as it goes (store.ts), so a
// caller can follow it; pushed costs, skipped campaigns and the drift read back after a final push are kept.

import type { PushRun } from './store.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The contract's push run. */
export function runView(r: PushRun) {
  return {
    runId: r.id,
    brandId: r.brandId,
    status: r.status,
    trigger: r.trigger,
    startedAt: iso(r.startedAt)!,
    finishedAt: iso(r.finishedAt),
    progress: { done: r.done, total: r.total },
    pushed: r.pushed.map((p) => ({
      providerCampaignId: p.providerCampaignId,
      trackerCampaignId: p.trackerCampaignId,
      date: p.date,
      final: p.final,
      cost: p.cost,
      currency: p.currency,
      timezone: p.timezone,
    })),
    skipped: r.skipped,
    error: r.error,
    drift: r.drift,
  };
}
