// The tracker spend push: one cycle places today's spend of every pushable mapped campaign in the
// tracker (in the ad account's time zone and currency), and once a day, at finalLocalHour after
// local midnight, yesterday's final spend. Each request sets the range's cost, so a cycle repeated
// (or repeated after a crash) sets the same costs again. A cycle is a run (push-runs.ts) whose
// progress is written as it goes; the brand's `tracker-push` job (jobs.ts) carries the cycles out. A rejected key or a plan that refuses cost updates turns the push
// off (tracker.push.disabled); any other failure keeps it on, records lastError and emits
// tracker.push.failed.

import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { SecretBox } from '../auth/encryption.js';
import { organizationOfBrand } from '../brands/store.js';
import { inTransaction } from '../db/connection.js';
import type { Outbox } from '../catalogue/services.js';
import { wakeJob } from '../jobs/queue/wake.js';
import { nextCronTime } from '../jobs/worker.js';
import { PlatformError } from '../platforms/port.js';
import type { Platforms } from '../platforms/registry.js';
import { addDays, localDate } from '../time/zones.js';
import { resolveMappings, type PushTarget } from './mappings.js';
import { TrackerError, decimalCost, minorUnits } from './port.js';
import type { TrackerService } from '../catalogue/tracker-port.js';
import {
  findConnection,
  findPushSetting,
  findRun,
  finishRun,
  lastFinalDate,
  recordFinalPush,
  runningRun,
  saveRunProgress,
  startPushRun,
  switchPushOff,
  updatePushSetting,
  upsertPushSetting,
  type DisabledReason,
  type PushSetting,
  type RunState,
} from './store.js';

/** When the push job runs (UTC): every hour at minute 5. */
export const PUSH_CRON = '5 * * * *';

/** The kind of the brand's push job (key: the brand id). */
export const PUSH_JOB_KIND = 'tracker-push';

export const DEFAULT_FINAL_LOCAL_HOUR = 3;
export const DEFAULT_REQUEST_INTERVAL_SECONDS = 2;

export interface PushDeps {
  knex: Knex;
  trackers: TrackerService;
  platforms: Platforms;
  secrets: SecretBox;
  events: Outbox;
  now: () => number;
  log: Logger;
}

const iso = (ms: number | string | null) => (ms === null ? null : new Date(Number(ms)).toISOString());

const hourFormats = new Map<string, Intl.DateTimeFormat>();
/** The local hour (0-23) at instant `ms` in `timeZone`. */
export function localHour(ms: number, timeZone: string): number {
  let f = hourFormats.get(timeZone);
  if (!f) hourFormats.set(timeZone, (f = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', hour: '2-digit' })));
  return Number(f.format(new Date(ms))) % 24;
}

/** The brand's push setting, or the defaults of a brand that never set one. */
export async function pushSetting(db: Knex | Knex.Transaction, brandId: number): Promise<PushSetting> {
  return (
    (await findPushSetting(db, brandId)) ?? {
      enabled: false,
      disabledReason: null,
      finalLocalHour: DEFAULT_FINAL_LOCAL_HOUR,
      requestIntervalSeconds: DEFAULT_REQUEST_INTERVAL_SECONDS,
      lastPushAt: null,
      lastCampaignsPushed: 0,
      lastError: null,
      lastErrorAt: null,
      unmatchedCount: 0,
    }
  );
}

/** The contract's tracker spend push setting. */
export async function pushView(db: Knex | Knex.Transaction, brandId: number) {
  const [row, conn] = await Promise.all([pushSetting(db, brandId), findConnection(db, brandId)]);
  return {
    brandId,
    connected: Boolean(conn),
    enabled: row.enabled,
    disabledReason: row.disabledReason,
    lastPushAt: iso(row.lastPushAt),
    lastCampaignsPushed: row.lastCampaignsPushed,
    lastError: row.lastError,
    lastErrorAt: iso(row.lastErrorAt),
    unmatchedCount: row.unmatchedCount,
    schedule: { cron: PUSH_CRON, finalLocalHour: row.finalLocalHour, requestIntervalSeconds: row.requestIntervalSeconds },
  };
}

/** Writes `changes` to the brand's setting (creating it with the defaults first). */
export async function savePushSetting(db: Knex | Knex.Transaction, brandId: number, changes: Partial<PushSetting>, now: number): Promise<void> {
  await upsertPushSetting(db, brandId, await pushSetting(db, brandId), changes, now);
}

/** Makes the brand's push job due at the next push hour (creating its row), inside the caller's transaction. */
export async function schedulePush(db: Knex | Knex.Transaction, brandId: number, now: number): Promise<void> {
  await wakeJob(db, PUSH_JOB_KIND, String(brandId), nextCronTime(PUSH_CRON, now));
}

/** Makes the brand's push job due now, to carry out a manual run (inside the caller's transaction). */
export function pushNow(db: Knex | Knex.Transaction, brandId: number, now: number): Promise<void> {
  return wakeJob(db, PUSH_JOB_KIND, String(brandId), now);
}

/**
 * Turns the push off for `reason` (only if it is on) and emits tracker.push.disabled in the same
 * transaction. Returns false when it was already off.
 */
export async function disablePush(
  trx: Knex | Knex.Transaction,
  events: Outbox,
  organizationId: number,
  brandId: number,
  reason: DisabledReason,
  now: number,
): Promise<boolean> {
  if (!(await switchPushOff(trx, brandId, reason, now))) return false;
  await events.emit(trx, { organizationId, brandId, type: 'tracker.push.disabled', data: { brandId, reason } });
  return true;
}

async function organizationOf(knex: Knex, brandId: number): Promise<number> {
  const organizationId = await organizationOfBrand(knex, brandId);
  if (organizationId === undefined) throw new Error(`Brand ${brandId} no longer exists.`);
  return organizationId;
}

/**
 * One turn of the brand's push job: carries out the manual run waiting (or starts a scheduled one)
 * unless the push is off or the tracker disconnected, which ends a waiting run saying so. Answers
 * when the job is due next: null parks it until set-tracker-push turns the push on again.
 */
export async function pushTurn(deps: PushDeps, brandId: number): Promise<number | null> {
  const { knex, now } = deps;
  const [setting, conn, organizationId] = await Promise.all([pushSetting(knex, brandId), findConnection(knex, brandId), organizationOfBrand(knex, brandId)]);
  const pending = await runningRun(knex, brandId);
  if (!setting.enabled || !conn || organizationId === undefined) {
    // Turned off or disconnected since the run was asked for: it ends saying so, and the job parks.
    if (pending)
      await finishRun(
        knex,
        pending.id,
        { pushed: [], skipped: [], drift: [], done: 0, total: 0 },
        'failed',
        'The push was turned off or the tracker disconnected before this run could start.',
        now(),
      );
    return null;
  }
  const runId = pending?.id ?? (await startPushRun(knex, brandId, 'schedule', now()));
  await executePushRun(deps, brandId, runId);
  const done = await findRun(knex, brandId, runId);
  deps.log.info({ job: PUSH_JOB_KIND, brandId, runId, trigger: done?.trigger, status: done?.status, pushed: done?.done ?? 0 }, 'tracker push cycle');
  const after = await pushSetting(knex, brandId);
  if (!after.enabled) return null;
  // Another manual run asked for meanwhile goes next, at once.
  return (await runningRun(knex, brandId)) ? now() : nextCronTime(PUSH_CRON, now());
}

/** Runs one push cycle of the brand as run `runId` (already started, status running), writing its progress as it goes. */
export async function executePushRun(deps: PushDeps, brandId: number, runId: number): Promise<void> {
  const { knex, now } = deps;
  const setting = await pushSetting(knex, brandId);
  const keyAtStart = (await findConnection(knex, brandId))?.apiKeySealed;
  const intervalMs = setting.requestIntervalSeconds * 1000;
  const state: RunState = { pushed: [], skipped: [], drift: [], done: 0, total: 0 };
  // A run repeated after a crash starts again from nothing: every cost is set again.
  await saveRunProgress(knex, runId, state);
  let requests = 0;
  /** Spaces tracker requests by requestIntervalSeconds (the first of the cycle goes at once). */
  const pace = async () => {
    if (requests++ > 0 && intervalMs > 0) await deps.trackers.sleep(intervalMs);
  };
  let unmatchedCount = 0;

  try {
    const resolved = await resolveMappings({ db: knex, trackers: deps.trackers, platforms: deps.platforms, secrets: deps.secrets, now }, brandId);
    // The campaign list and the clicks report were the cycle's first requests.
    requests = 1;
    unmatchedCount = resolved.list.unmatched.length;
    const adapter = deps.trackers.adapterFor(resolved.connection);
    for (const m of resolved.list.mappings) {
      if (!m.pushable) state.skipped.push({ providerCampaignId: m.providerCampaignId, reason: m.skipReason ?? 'not_pushable' });
    }
    for (const u of resolved.list.unmatched) state.skipped.push({ providerCampaignId: u.providerCampaignId, reason: u.reason });
    const pushable = resolved.targets.filter((t) => t.mapping.pushable);

    // The plan first, so progress has a total: yesterday's final spend of each account whose
    // finalLocalHour has passed and whose yesterday was not pushed yet, then today's spend.
    const finals: Array<{ accountId: string; date: string; targets: PushTarget[] }> = [];
    for (const accountId of [...new Set(pushable.map((t) => t.campaign.accountId))]) {
      const account = await deps.platforms.account(knex, brandId, accountId);
      const at = now();
      if (localHour(at, account.timezone) < setting.finalLocalHour) continue;
      const yesterday = addDays(localDate(at, account.timezone), -1);
      const done = await lastFinalDate(knex, brandId, accountId);
      if (done !== undefined && done >= yesterday) continue;
      finals.push({ accountId, date: yesterday, targets: pushable.filter((x) => x.campaign.accountId === accountId) });
    }
    state.total = finals.reduce((n, f) => n + f.targets.length, 0) + pushable.length;
    await saveRunProgress(knex, runId, state);

    const push = async (t: PushTarget, date: string, final: boolean) => {
      const account = await deps.platforms.account(knex, brandId, t.campaign.accountId);
      const spend = await deps.platforms.adapterFor(account.platform).insights(account, [t.campaign.providerCampaignId], { since: date, until: date });
      const sub3 = t.shared ? t.campaign.providerCampaignId : null;
      const cost = decimalCost(spend.spendMinorUnits, account.currency);
      await pace();
      await adapter.updateCosts(resolved.connection, t.mapping.trackerCampaignId, {
        startDate: date,
        endDate: date,
        cost,
        currency: account.currency,
        timezone: account.timezone,
        sub3,
      });
      state.pushed.push({
        providerCampaignId: t.campaign.providerCampaignId,
        trackerCampaignId: t.mapping.trackerCampaignId,
        date,
        final,
        costMinorUnits: spend.spendMinorUnits,
        cost,
        currency: account.currency,
        timezone: account.timezone,
        sub3Filter: sub3,
      });
      state.done += 1;
      await saveRunProgress(knex, runId, state);
    };

    for (const f of finals) {
      const account = await deps.platforms.account(knex, brandId, f.accountId);
      for (const t of f.targets) await push(t, f.date, true);
      // Spend drift: read back what the tracker now holds for yesterday and compare it with the platform's spend.
      await pace();
      const held = await adapter.costReport(resolved.connection, { from: f.date, to: f.date, timezone: account.timezone });
      for (const p of state.pushed.filter((x) => x.final && x.date === f.date && x.timezone === account.timezone)) {
        const rows = held.filter((h) => h.trackerCampaignId === p.trackerCampaignId && (p.sub3Filter === null || h.sub3 === p.sub3Filter));
        const trackerMinorUnits = rows.reduce((sum, h) => sum + minorUnits(h.cost, account.currency), 0);
        state.drift.push({
          providerCampaignId: p.providerCampaignId,
          trackerCampaignId: p.trackerCampaignId,
          date: f.date,
          platformMinorUnits: p.costMinorUnits,
          trackerMinorUnits,
          differenceMinorUnits: trackerMinorUnits - p.costMinorUnits,
        });
      }
      // Recorded only once every campaign of the account was set: a crash before here repeats it, setting the same costs.
      await recordFinalPush(knex, brandId, f.accountId, f.date, now());
    }
    for (const t of pushable) {
      const account = await deps.platforms.account(knex, brandId, t.campaign.accountId);
      await push(t, localDate(now(), account.timezone), false);
    }
  } catch (err) {
    const organizationId = await organizationOf(knex, brandId);
    const reason: DisabledReason | null = err instanceof TrackerError && (err.kind === 'unauthorized' || err.kind === 'refused') ? err.kind : null;
    if (err instanceof TrackerError && reason) {
      await inTransaction(knex, async (trx) => {
        await finishRun(trx, runId, state, 'failed', `${err.message} The push was turned off (${err.kind}); turn it back on with set-tracker-push.`, now());
        // A key changed while this cycle ran was disabled for that reason already; the old key's refusal says nothing of the new one.
        const current = await findConnection(trx, brandId);
        if (current?.apiKeySealed !== keyAtStart) return;
        await updatePushSetting(trx, brandId, { lastError: err.message.slice(0, 2000), lastErrorAt: now() });
        await disablePush(trx, deps.events, organizationId, brandId, reason, now());
      });
      return;
    }
    if (!(err instanceof TrackerError) && !(err instanceof PlatformError)) deps.log.error({ err, brandId }, 'tracker push cycle failed unexpectedly');
    const message = err instanceof TrackerError || err instanceof PlatformError ? err.message : 'The push cycle failed unexpectedly; it is retried next hour.';
    await inTransaction(knex, async (trx) => {
      await finishRun(trx, runId, state, 'failed', message, now());
      await updatePushSetting(trx, brandId, { lastError: message.slice(0, 2000), lastErrorAt: now() }, now());
      await deps.events.emit(trx, { organizationId, brandId, type: 'tracker.push.failed', data: { brandId, error: message.slice(0, 2000) } });
    });
    return;
  }
  await inTransaction(knex, async (trx) => {
    await finishRun(trx, runId, state, 'succeeded', null, now());
    await updatePushSetting(trx, brandId, { lastPushAt: now(), lastCampaignsPushed: state.pushed.filter((p) => !p.final).length, unmatchedCount }, now());
  });
}
