// The tracker spend push: one cycle places today's spend of every pushable mapped campaign in the
// tracker (in the ad account's time zone and currency), and once a day, at finalLocalHour after
// local midnight, yesterday's final spend. Each request sets the range's cost, so a cycle repeated
// (or repeated after a crash) sets the same costs again. A cycle is a run (push-runs.ts) whose
// progress is written as it goes. A rejected key or a plan that refuses cost updates turns the push
// off (tracker.push.disabled); any other failure keeps it on, records lastError and emits
// tracker.push.failed.

import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { SecretBox } from '../auth/encryption.js';
import { inTransaction } from '../db/connection.js';
import type { EventOutbox } from '../events/outbox.js';
import { PlatformError } from '../platforms/port.js';
import type { Platforms } from '../platforms/registry.js';
import { addDays, localDate } from '../time/zones.js';
import { resolveMappings, type PushTarget } from './mappings.js';
import { TrackerError, decimalCost, minorUnits } from './port.js';
import { finishRun, saveRunProgress, type PushRunRow, type RunState } from './push-runs.js';
import type { Trackers } from './registry.js';

/** When the push job runs (UTC): every hour at minute 5. */
export const PUSH_CRON = '5 * * * *';

export const DEFAULT_FINAL_LOCAL_HOUR = 3;
export const DEFAULT_REQUEST_INTERVAL_SECONDS = 2;

export type DisabledReason = 'unauthorized' | 'refused' | 'key_changed';

export interface PushSettingRow {
  brand_id: number;
  enabled: boolean | number;
  disabled_reason: DisabledReason | null;
  final_local_hour: number;
  request_interval_seconds: number;
  last_push_at: number | null;
  last_campaigns_pushed: number;
  last_error: string | null;
  last_error_at: number | null;
  unmatched_count: number;
  updated_at: number;
}

export interface PushDeps {
  knex: Knex;
  trackers: Trackers;
  platforms: Platforms;
  secrets: SecretBox;
  events: EventOutbox;
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

/** The brand's push setting row, or the defaults of a brand that never set one. */
export async function pushSetting(db: Knex | Knex.Transaction, brandId: number): Promise<PushSettingRow> {
  const row = await db('tracker_push_settings').where({ brand_id: brandId }).first();
  return (
    row ?? {
      brand_id: brandId,
      enabled: false,
      disabled_reason: null,
      final_local_hour: DEFAULT_FINAL_LOCAL_HOUR,
      request_interval_seconds: DEFAULT_REQUEST_INTERVAL_SECONDS,
      last_push_at: null,
      last_campaigns_pushed: 0,
      last_error: null,
      last_error_at: null,
      unmatched_count: 0,
      updated_at: 0,
    }
  );
}

/** The contract's tracker spend push setting. */
export async function pushView(db: Knex | Knex.Transaction, brandId: number) {
  const [row, conn] = await Promise.all([pushSetting(db, brandId), db('tracker_connections').where({ brand_id: brandId }).first('brand_id')]);
  return {
    brandId,
    connected: Boolean(conn),
    enabled: Boolean(row.enabled),
    disabledReason: row.disabled_reason ?? null,
    lastPushAt: iso(row.last_push_at),
    lastCampaignsPushed: Number(row.last_campaigns_pushed),
    lastError: row.last_error ?? null,
    lastErrorAt: iso(row.last_error_at),
    unmatchedCount: Number(row.unmatched_count),
    schedule: { cron: PUSH_CRON, finalLocalHour: Number(row.final_local_hour), requestIntervalSeconds: Number(row.request_interval_seconds) },
  };
}

/** Upserts the brand's setting row with `changes` (creating it with the defaults first). */
export async function savePushSetting(db: Knex | Knex.Transaction, brandId: number, changes: Partial<PushSettingRow>, now: number): Promise<void> {
  const current = await pushSetting(db, brandId);
  await db('tracker_push_settings')
    .insert({ ...current, ...changes, brand_id: brandId, updated_at: now })
    .onConflict('brand_id')
    .merge({ ...changes, updated_at: now });
}

/**
 * Turns the push off for `reason` (only if it is on) and emits tracker.push.disabled in the same
 * transaction. Returns false when it was already off.
 */
export async function disablePush(
  trx: Knex.Transaction,
  events: EventOutbox,
  organizationId: number,
  brandId: number,
  reason: DisabledReason,
  now: number,
): Promise<boolean> {
  const changed = await trx('tracker_push_settings')
    .where({ brand_id: brandId, enabled: true })
    .update({ enabled: false, disabled_reason: reason, updated_at: now });
  if (!changed) return false;
  await events.emit(trx, { organizationId, brandId, type: 'tracker.push.disabled', data: { brandId, reason } });
  return true;
}

async function organizationOf(knex: Knex, brandId: number): Promise<number> {
  return Number((await knex('brands').where({ id: brandId }).first('organization_id')).organization_id);
}

/** Runs one push cycle as run `run` (already started, status running), writing its progress as it goes. */
export async function executePushRun(deps: PushDeps, run: PushRunRow): Promise<void> {
  const { knex, now } = deps;
  const brandId = Number(run.brand_id);
  const runId = Number(run.id);
  const setting = await pushSetting(knex, brandId);
  const connRow = await knex('tracker_connections').where({ brand_id: brandId }).first('api_key_sealed');
  const keyAtStart = connRow?.api_key_sealed as string | undefined;
  const intervalMs = Number(setting.request_interval_seconds) * 1000;
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
      if (localHour(at, account.timezone) < Number(setting.final_local_hour)) continue;
      const yesterday = addDays(localDate(at, account.timezone), -1);
      const done = await knex('tracker_final_pushes').where({ brand_id: brandId, account_id: accountId }).first('final_date');
      if (done && done.final_date >= yesterday) continue;
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
      await knex('tracker_final_pushes')
        .insert({ brand_id: brandId, account_id: f.accountId, final_date: f.date, pushed_at: now() })
        .onConflict(['brand_id', 'account_id'])
        .merge({ final_date: f.date, pushed_at: now() });
    }
    for (const t of pushable) {
      const account = await deps.platforms.account(knex, brandId, t.campaign.accountId);
      await push(t, localDate(now(), account.timezone), false);
    }
  } catch (err) {
    const organizationId = await organizationOf(knex, brandId);
    if (err instanceof TrackerError && (err.kind === 'unauthorized' || err.kind === 'refused')) {
      await inTransaction(knex, async (trx) => {
        await finishRun(trx, runId, state, 'failed', `${err.message} The push was turned off (${err.kind}); turn it back on with set-tracker-push.`, now());
        // A key changed while this cycle ran was disabled for that reason already; the old key's refusal says nothing of the new one.
        const current = await trx('tracker_connections').where({ brand_id: brandId }).first('api_key_sealed');
        if (current?.api_key_sealed !== keyAtStart) return;
        await trx('tracker_push_settings')
          .where({ brand_id: brandId })
          .update({ last_error: err.message.slice(0, 2000), last_error_at: now() });
        await disablePush(trx, deps.events, organizationId, brandId, err.kind as DisabledReason, now());
      });
      return;
    }
    if (!(err instanceof TrackerError) && !(err instanceof PlatformError)) deps.log.error({ err, brandId }, 'tracker push cycle failed unexpectedly');
    const message = err instanceof TrackerError || err instanceof PlatformError ? err.message : 'The push cycle failed unexpectedly; it is retried next hour.';
    await inTransaction(knex, async (trx) => {
      await finishRun(trx, runId, state, 'failed', message, now());
      await trx('tracker_push_settings')
        .where({ brand_id: brandId })
        .update({ last_error: message.slice(0, 2000), last_error_at: now(), updated_at: now() });
      await deps.events.emit(trx, { organizationId, brandId, type: 'tracker.push.failed', data: { brandId, error: message.slice(0, 2000) } });
    });
    return;
  }
  await inTransaction(knex, async (trx) => {
    await finishRun(trx, runId, state, 'succeeded', null, now());
    await trx('tracker_push_settings')
      .where({ brand_id: brandId })
      .update({
        last_push_at: now(),
        last_campaigns_pushed: state.pushed.filter((p) => !p.final).length,
        unmatched_count: unmatchedCount,
        updated_at: now(),
      });
  });
}
