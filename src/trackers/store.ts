// The tracker area's tables: `tracker_connections` (one per brand, key sealed), `tracker_mappings`
// (manual mappings), `tracker_push_settings`, `tracker_push_runs`, `tracker_final_pushes`, and the
// simulated tracker's `sandbox_tracker_costs`. The only file that queries them.

import type { Knex } from 'knex';
import type { StoredConnection } from '../catalogue/tracker-port.js';

export type { StoredConnection };

type Db = Knex | Knex.Transaction;

// ---- tracker_connections

/** The brand's connection (locked when `forUpdate` inside a transaction), or undefined when no tracker is connected. */
export async function findConnection(db: Db, brandId: number, forUpdate = false): Promise<StoredConnection | undefined> {
  const q = db('tracker_connections').where({ brand_id: brandId }).first();
  if (forUpdate && (db as Knex.Transaction).isTransaction) q.forUpdate();
  const r = await q;
  if (!r) return undefined;
  return {
    brandId: Number(r.brand_id),
    baseUrl: r.base_url,
    baseUrlOrigin: r.base_url_origin === 'operator' ? 'operator' : 'caller',
    apiKeySealed: r.api_key_sealed,
    apiKeyLast4: r.api_key_last4,
    createdAt: Number(r.created_at),
    updatedAt: r.updated_at === null || r.updated_at === undefined ? null : Number(r.updated_at),
  };
}

/**
 * Stores the brand's first connection: given through the API (`caller`, the outbound address rule
 * applies) or by the operator's bootstrap file (`operator`, called as given).
 */
export async function insertConnection(
  db: Db,
  brandId: number,
  c: { baseUrl: string; apiKeySealed: string; apiKeyLast4: string },
  at: number,
  origin: 'caller' | 'operator' = 'caller',
): Promise<void> {
  await db('tracker_connections').insert({
    brand_id: brandId,
    base_url: c.baseUrl,
    base_url_origin: origin,
    api_key_sealed: c.apiKeySealed,
    api_key_last4: c.apiKeyLast4,
    created_at: at,
    updated_at: at,
  });
}

/** Replaces the brand's connection with one given through the API. */
export async function updateConnection(db: Db, brandId: number, c: { baseUrl: string; apiKeySealed: string; apiKeyLast4: string }, at: number): Promise<void> {
  await db('tracker_connections')
    .where({ brand_id: brandId })
    .update({ base_url: c.baseUrl, base_url_origin: 'caller', api_key_sealed: c.apiKeySealed, api_key_last4: c.apiKeyLast4, updated_at: at });
}

export async function deleteConnection(db: Db, brandId: number): Promise<void> {
  await db('tracker_connections').where({ brand_id: brandId }).delete();
}

// ---- tracker_mappings

export interface ManualMapping {
  providerCampaignId: string;
  trackerCampaignId: string;
  updatedAt: number;
  updatedByUserId: number;
}

/** The brand's manual mappings. */
export async function manualMappingsOf(db: Db, brandId: number): Promise<ManualMapping[]> {
  const rows = await db('tracker_mappings').where({ brand_id: brandId }).select();
  return rows.map((r) => ({
    providerCampaignId: r.provider_campaign_id,
    trackerCampaignId: r.tracker_campaign_id,
    updatedAt: Number(r.updated_at),
    updatedByUserId: Number(r.updated_by_user_id),
  }));
}

/** Sets the manual mapping of a service campaign (one upsert statement). */
export async function saveMapping(db: Db, brandId: number, m: ManualMapping): Promise<void> {
  const changes = { tracker_campaign_id: m.trackerCampaignId, updated_at: m.updatedAt, updated_by_user_id: m.updatedByUserId };
  await db('tracker_mappings')
    .insert({ brand_id: brandId, provider_campaign_id: m.providerCampaignId, ...changes })
    .onConflict(['brand_id', 'provider_campaign_id'])
    .merge(changes);
}

export async function deleteMapping(db: Db, brandId: number, providerCampaignId: string): Promise<void> {
  await db('tracker_mappings').where({ brand_id: brandId, provider_campaign_id: providerCampaignId }).delete();
}

// ---- tracker_push_settings

export type DisabledReason = 'unauthorized' | 'refused' | 'key_changed';

export interface PushSetting {
  enabled: boolean;
  disabledReason: DisabledReason | null;
  finalLocalHour: number;
  requestIntervalSeconds: number;
  lastPushAt: number | null;
  lastCampaignsPushed: number;
  lastError: string | null;
  lastErrorAt: number | null;
  unmatchedCount: number;
}

const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

/** The brand's push setting, or undefined for a brand that never set one. */
export async function findPushSetting(db: Db, brandId: number): Promise<PushSetting | undefined> {
  const r = await db('tracker_push_settings').where({ brand_id: brandId }).first();
  if (!r) return undefined;
  return {
    enabled: Boolean(r.enabled),
    disabledReason: r.disabled_reason ?? null,
    finalLocalHour: Number(r.final_local_hour),
    requestIntervalSeconds: Number(r.request_interval_seconds),
    lastPushAt: num(r.last_push_at),
    lastCampaignsPushed: Number(r.last_campaigns_pushed),
    lastError: r.last_error ?? null,
    lastErrorAt: num(r.last_error_at),
    unmatchedCount: Number(r.unmatched_count),
  };
}

const settingColumns = (s: Partial<PushSetting>) => {
  const row: Record<string, unknown> = {};
  if (s.enabled !== undefined) row.enabled = s.enabled;
  if (s.disabledReason !== undefined) row.disabled_reason = s.disabledReason;
  if (s.finalLocalHour !== undefined) row.final_local_hour = s.finalLocalHour;
  if (s.requestIntervalSeconds !== undefined) row.request_interval_seconds = s.requestIntervalSeconds;
  if (s.lastPushAt !== undefined) row.last_push_at = s.lastPushAt;
  if (s.lastCampaignsPushed !== undefined) row.last_campaigns_pushed = s.lastCampaignsPushed;
  if (s.lastError !== undefined) row.last_error = s.lastError;
  if (s.lastErrorAt !== undefined) row.last_error_at = s.lastErrorAt;
  if (s.unmatchedCount !== undefined) row.unmatched_count = s.unmatchedCount;
  return row;
};

/** Writes `changes` to the brand's setting, creating its row from `current` (the setting as read) first. */
export async function upsertPushSetting(db: Db, brandId: number, current: PushSetting, changes: Partial<PushSetting>, at: number): Promise<void> {
  await db('tracker_push_settings')
    .insert({ ...settingColumns({ ...current, ...changes }), brand_id: brandId, updated_at: at })
    .onConflict('brand_id')
    .merge({ ...settingColumns(changes), updated_at: at });
}

/** Changes the brand's existing setting row (nothing when it has none); `at` also sets updated_at when given. */
export async function updatePushSetting(db: Db, brandId: number, changes: Partial<PushSetting>, at?: number): Promise<void> {
  await db('tracker_push_settings')
    .where({ brand_id: brandId })
    .update({ ...settingColumns(changes), ...(at === undefined ? {} : { updated_at: at }) });
}

/** Turns the push off for `reason` only if it is on, in one statement; answers whether it was on. */
export async function switchPushOff(db: Db, brandId: number, reason: DisabledReason, at: number): Promise<boolean> {
  const changed = await db('tracker_push_settings')
    .where({ brand_id: brandId, enabled: true })
    .update({ enabled: false, disabled_reason: reason, updated_at: at });
  return changed > 0;
}

// ---- tracker_push_runs

export type RunTrigger = 'manual' | 'schedule';
export type RunStatus = 'running' | 'succeeded' | 'failed';

/** One cost the run set in the tracker (the wire view drops costMinorUnits and sub3Filter). */
export interface PushedCost {
  providerCampaignId: string;
  trackerCampaignId: string;
  date: string;
  final: boolean;
  costMinorUnits: number;
  cost: string;
  currency: string;
  timezone: string;
  sub3Filter: string | null;
}

/** Spend drift after a final push: what the ad platform reported against what the tracker holds. */
export interface Drift {
  providerCampaignId: string;
  trackerCampaignId: string;
  date: string;
  platformMinorUnits: number;
  trackerMinorUnits: number;
  /** trackerMinorUnits - platformMinorUnits: 0 when the tracker holds exactly the pushed spend. */
  differenceMinorUnits: number;
}

/** What a run has done so far. */
export interface RunState {
  pushed: PushedCost[];
  skipped: Array<{ providerCampaignId: string; reason: string }>;
  drift: Drift[];
  done: number;
  total: number;
}

export interface PushRun extends RunState {
  id: number;
  brandId: number;
  trigger: RunTrigger;
  status: RunStatus;
  startedAt: number;
  finishedAt: number | null;
  error: string | null;
}

function toRun(r: Record<string, any>): PushRun {
  return {
    id: Number(r.id),
    brandId: Number(r.brand_id),
    trigger: r.trigger,
    status: r.status,
    startedAt: Number(r.started_at),
    finishedAt: num(r.finished_at),
    done: Number(r.progress_done),
    total: Number(r.progress_total),
    pushed: JSON.parse(r.pushed),
    skipped: JSON.parse(r.skipped),
    drift: JSON.parse(r.drift),
    error: r.error ?? null,
  };
}

/** Starts a run of the brand (status running, nothing done yet); answers its id. */
export async function startPushRun(db: Db, brandId: number, trigger: RunTrigger, at: number): Promise<number> {
  const [id] = await db('tracker_push_runs').insert({
    brand_id: brandId,
    trigger,
    status: 'running',
    started_at: at,
    progress_done: 0,
    progress_total: 0,
    pushed: '[]',
    skipped: '[]',
    drift: '[]',
  });
  return Number(id);
}

/** Writes what the run has done so far. */
export async function saveRunProgress(db: Db, runId: number, s: RunState): Promise<void> {
  await db('tracker_push_runs')
    .where({ id: runId })
    .update({
      progress_done: s.done,
      progress_total: s.total,
      pushed: JSON.stringify(s.pushed),
      skipped: JSON.stringify(s.skipped),
      drift: JSON.stringify(s.drift),
    });
}

/** Ends the run as `status`, with what it did and why it failed. */
export async function finishRun(db: Db, runId: number, s: RunState, status: Exclude<RunStatus, 'running'>, error: string | null, at: number): Promise<void> {
  await saveRunProgress(db, runId, s);
  await db('tracker_push_runs')
    .where({ id: runId })
    .update({ status, error: error?.slice(0, 2000) ?? null, finished_at: at });
}

/** The brand's run still going (the oldest), or undefined. */
export async function runningRun(db: Db, brandId: number): Promise<PushRun | undefined> {
  const row = await db('tracker_push_runs').where({ brand_id: brandId, status: 'running' }).orderBy('id').first();
  return row ? toRun(row) : undefined;
}

/** Run `runId` of the brand, or undefined (a run of another brand answers as a missing one). */
export async function findRun(db: Db, brandId: number, runId: number): Promise<PushRun | undefined> {
  const row = await db('tracker_push_runs').where({ id: runId, brand_id: brandId }).first();
  return row ? toRun(row) : undefined;
}

// ---- tracker_final_pushes

/** The last local date whose final spend was pushed for the brand's account, or undefined. */
export async function lastFinalDate(db: Db, brandId: number, accountId: string): Promise<string | undefined> {
  const row = await db('tracker_final_pushes').where({ brand_id: brandId, account_id: accountId }).first('final_date');
  return row?.final_date;
}

/** Records that the account's final spend of `date` was pushed. */
export async function recordFinalPush(db: Db, brandId: number, accountId: string, date: string, at: number): Promise<void> {
  await db('tracker_final_pushes')
    .insert({ brand_id: brandId, account_id: accountId, final_date: date, pushed_at: at })
    .onConflict(['brand_id', 'account_id'])
    .merge({ final_date: date, pushed_at: at });
}

// ---- sandbox_tracker_costs (the simulated tracker, sandbox.ts)

/** The costs the simulated tracker holds for the brand over exactly the range `from`..`to`. */
export async function sandboxCosts(
  db: Db,
  brandId: number,
  from: string,
  to: string,
): Promise<Array<{ trackerCampaignId: string; sub3: string; cost: string }>> {
  const rows = await db('sandbox_tracker_costs').where({ brand_id: brandId, start_date: from, end_date: to }).select('tracker_campaign_id', 'sub_id_3', 'cost');
  return rows.map((r) => ({ trackerCampaignId: r.tracker_campaign_id, sub3: r.sub_id_3, cost: r.cost }));
}

/** Sets (never adds) the simulated tracker's cost of a campaign, range and sub_id_3 filter ('' for none). */
export async function setSandboxCost(
  db: Db,
  c: { brandId: number; trackerCampaignId: string; startDate: string; endDate: string; sub3: string; cost: string; currency: string; timezone: string },
  at: number,
): Promise<void> {
  await db('sandbox_tracker_costs')
    .insert({
      brand_id: c.brandId,
      tracker_campaign_id: c.trackerCampaignId,
      start_date: c.startDate,
      end_date: c.endDate,
      sub_id_3: c.sub3,
      cost: c.cost,
      currency: c.currency,
      timezone: c.timezone,
      updated_at: at,
    })
    .onConflict(['brand_id', 'tracker_campaign_id', 'start_date', 'end_date', 'sub_id_3'])
    .merge({ cost: c.cost, currency: c.currency, timezone: c.timezone, updated_at: at });
}
