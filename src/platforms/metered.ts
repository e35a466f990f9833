// The ad-platform port, metered: every adapter call counted by platform, call and outcome (ok,
// throttled, error), timed, and traced as a child span of the request or job that made it.

import { PlatformError, type PlatformAdapter } from './port.js';
import { countPlatformCall } from '../observability/metrics.js';
import { inSpan } from '../observability/tracing.js';

type Call = Exclude<keyof PlatformAdapter, 'platform'>;

/** Every call of the port: the `call` label's whole vocabulary (the compiler keeps it complete). */
const CALLS: Record<Call, true> = {
  listCampaigns: true,
  listLeadForms: true,
  listOptions: true,
  insights: true,
  insightsByObject: true,
  report: true,
  createObjects: true,
  findCreated: true,
  confirmRecorded: true,
  childrenOf: true,
  uploadCreative: true,
  unknownCountries: true,
  updateObject: true,
  setStatus: true,
  setStatusEach: true,
  setBudget: true,
  deleteObjects: true,
  finishPublish: true,
  metaAccountFacts: true,
  validateCreates: true,
  validateWithTools: true,
  validateBudget: true,
};

/** `adapter` with each call of the port counted and traced; the adapter itself is unchanged. */
export function metered(adapter: PlatformAdapter): PlatformAdapter {
  const wrapped = Object.create(adapter) as Record<string, unknown>;
  for (const call of Object.keys(CALLS) as Call[]) {
    const original = adapter[call] as ((...args: unknown[]) => Promise<unknown>) | undefined;
    // An optional call the adapter does not have (finishPublish, metaAccountFacts) stays absent.
    if (typeof original !== 'function') continue;
    wrapped[call] = async (...args: unknown[]) => {
      const started = performance.now();
      let outcome: 'ok' | 'throttled' | 'error' = 'ok';
      try {
        return await inSpan(`platform ${adapter.platform} ${call}`, { 'svc.platform': adapter.platform, 'svc.platform.call': call }, () =>
          original.apply(adapter, args),
        );
      } catch (err) {
        outcome = err instanceof PlatformError && err.kind === 'throttled' ? 'throttled' : 'error';
        throw err;
      } finally {
        countPlatformCall(adapter.platform, call, outcome, (performance.now() - started) / 1000);
      }
    };
  }
  return wrapped as unknown as PlatformAdapter;
}
