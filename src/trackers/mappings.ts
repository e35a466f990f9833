// The mapping of service campaigns to tracker campaigns. Automatic mappings come from the tracker's
// clicks of the last 7 days: on sub3 (sub_id_3 = the ad platform campaign id), else on the fallback
// click parameter tracker_campaign_id; a manual mapping wins. A tracker campaign that receives clicks
// of more than one service campaign is shared: its pushes filter on sub_id_3, so a campaign whose
// clicks there carry no sub3 cannot be pushed (shared_campaign_without_sub3).

import type { Knex } from 'knex';
import type { SecretBox } from '../auth/encryption.js';
import { ServiceError } from '../errors.js';
import type { Platforms } from '../platforms/registry.js';
import { addDays, localDate } from '../time/zones.js';
import { serviceCampaigns, type ServiceCampaign } from './campaigns.js';
import type { ClickRow, TrackerCampaign, TrackerConnection } from './port.js';
import type { TrackerService } from '../catalogue/tracker-port.js';
import { manualMappingsOf } from './store.js';

/** Days of clicks automatic mappings are derived from (today included). */
export const MAPPING_DAYS = 7;

export type MatchedOn = 'sub3' | 'tracker_campaign_id';
export type UnmatchedReason = 'ambiguous' | 'no_clicks' | 'shared_campaign_without_sub3';

export interface Candidate {
  trackerCampaignId: string;
  trackerCampaignName: string;
  clicks: number;
}

export interface Mapping {
  providerCampaignId: string;
  svcCampaignName: string;
  provider: string;
  trackerCampaignId: string;
  trackerCampaignName: string;
  source: 'auto' | 'manual';
  matchedOn: MatchedOn;
  pushable: boolean;
  skipReason: string | null;
  updatedAt: string;
  updatedByUserId: number;
}

export interface Unmatched {
  providerCampaignId: string;
  svcCampaignName: string;
  provider: string;
  reason: UnmatchedReason;
  candidates: Candidate[];
}

export interface MappingList {
  brandId: number;
  mappings: Mapping[];
  unmatched: Unmatched[];
  trackerCampaigns: TrackerCampaign[];
}

/** What the push needs beyond the wire view: the account and whether to filter on sub_id_3. */
export interface PushTarget {
  campaign: ServiceCampaign;
  mapping: Mapping;
  /** The tracker campaign receives clicks of more than one service campaign: push with filters.sub_id_3. */
  shared: boolean;
}

export interface MappingDeps {
  db: Knex | Knex.Transaction;
  trackers: TrackerService;
  platforms: Platforms;
  secrets: SecretBox;
  now: () => number;
}

export interface ResolvedMappings {
  list: MappingList;
  targets: PushTarget[];
  connection: TrackerConnection;
}

const iso = (ms: number | string) => new Date(Number(ms)).toISOString();

function rank(candidates: Map<string, Candidate>): Candidate[] {
  return [...candidates.values()].sort((a, b) => b.clicks - a.clicks || a.trackerCampaignId.localeCompare(b.trackerCampaignId));
}

function tally(rows: ClickRow[], pick: (r: ClickRow) => string | null): Map<string, Map<string, Candidate>> {
  const out = new Map<string, Map<string, Candidate>>();
  for (const r of rows) {
    const key = pick(r);
    if (!key) continue;
    const byCampaign = out.get(key) ?? new Map<string, Candidate>();
    const c = byCampaign.get(r.trackerCampaignId) ?? { trackerCampaignId: r.trackerCampaignId, trackerCampaignName: r.trackerCampaignName, clicks: 0 };
    c.clicks += r.clicks;
    byCampaign.set(r.trackerCampaignId, c);
    out.set(key, byCampaign);
  }
  return out;
}

/** The brand's connection, or 409 conflict when no tracker is connected. */
export async function requireConnection(deps: MappingDeps, brandId: number): Promise<TrackerConnection> {
  const conn = await deps.trackers.connection(deps.db, deps.secrets, brandId);
  if (!conn)
    throw new ServiceError('conflict', `Brand ${brandId} has no click tracker connected; connect one first (connect-tracker with baseUrl and apiKey).`);
  return conn;
}

/** Spend of a campaign over the last MAPPING_DAYS days in its account's time zone (minor units). */
async function recentSpend(deps: MappingDeps, brandId: number, c: ServiceCampaign): Promise<number> {
  const account = await deps.platforms.account(deps.db, brandId, c.accountId);
  const until = localDate(deps.now(), account.timezone);
  const totals = await deps.platforms
    .adapterFor(account.platform)
    .insights(account, [c.providerCampaignId], { since: addDays(until, 1 - MAPPING_DAYS), until });
  return totals.spendMinorUnits;
}

/** The mapping list of the contract, and the push targets behind it (reads the tracker; 409 when none is connected). */
export async function resolveMappings(deps: MappingDeps, brandId: number): Promise<ResolvedMappings> {
  const connection = await requireConnection(deps, brandId);
  const adapter = deps.trackers.adapterFor(connection);
  const now = deps.now();
  const today = localDate(now, 'UTC');
  const [trackerCampaigns, rows, campaigns, manualRows] = await Promise.all([
    adapter.listCampaigns(connection),
    adapter.clickReport(connection, { from: addDays(today, 1 - MAPPING_DAYS), to: today, timezone: 'UTC' }),
    serviceCampaigns(deps.db, brandId),
    manualMappingsOf(deps.db, brandId),
  ]);
  const titles = new Map(trackerCampaigns.map((t) => [t.id, t]));
  const bySub3 = tally(rows, (r) => r.sub3);
  const byParam = tally(
    rows.filter((r) => !r.sub3),
    (r) => r.campaignIdParam,
  );
  const manual = new Map(manualRows.map((m) => [m.providerCampaignId, m]));
  const ours = new Set(campaigns.map((c) => c.providerCampaignId));

  // Service campaigns whose clicks reach each tracker campaign (on sub3 or on the fallback parameter).
  const reach = new Map<string, Set<string>>();
  for (const r of rows) {
    for (const id of [r.sub3, r.campaignIdParam]) {
      if (id && ours.has(id)) reach.set(r.trackerCampaignId, (reach.get(r.trackerCampaignId) ?? new Set()).add(id));
    }
  }

  const mappings: Mapping[] = [];
  const unmatched: Unmatched[] = [];
  const targets: PushTarget[] = [];
  const chosen: Array<{
    c: ServiceCampaign;
    trackerCampaignId: string;
    matchedOn: MatchedOn;
    source: 'auto' | 'manual';
    updatedAt: string;
    updatedBy: number;
  }> = [];
  for (const c of campaigns) {
    const sub3 = bySub3.get(c.providerCampaignId);
    const param = byParam.get(c.providerCampaignId);
    const m = manual.get(c.providerCampaignId);
    const base = { providerCampaignId: c.providerCampaignId, svcCampaignName: c.name, provider: c.provider };
    if (m) {
      chosen.push({
        c,
        trackerCampaignId: m.trackerCampaignId,
        matchedOn: sub3?.has(m.trackerCampaignId) ? 'sub3' : 'tracker_campaign_id',
        source: 'manual',
        updatedAt: iso(m.updatedAt),
        updatedBy: m.updatedByUserId,
      });
      continue;
    }
    const onSub3 = sub3 ? rank(sub3) : [];
    const onParam = param ? rank(param) : [];
    if (onSub3.length === 1) {
      chosen.push({ c, trackerCampaignId: onSub3[0].trackerCampaignId, matchedOn: 'sub3', source: 'auto', updatedAt: iso(now), updatedBy: 0 });
    } else if (onSub3.length > 1) {
      unmatched.push({ ...base, reason: 'ambiguous', candidates: onSub3 });
    } else if (onParam.length > 1) {
      unmatched.push({ ...base, reason: 'ambiguous', candidates: onParam });
    } else if (onParam.length === 1) {
      // Without sub3 the campaign's cost can be placed only in a tracker campaign it has alone.
      if ((reach.get(onParam[0].trackerCampaignId)?.size ?? 0) > 1) unmatched.push({ ...base, reason: 'shared_campaign_without_sub3', candidates: onParam });
      else
        chosen.push({
          c,
          trackerCampaignId: onParam[0].trackerCampaignId,
          matchedOn: 'tracker_campaign_id',
          source: 'auto',
          updatedAt: iso(now),
          updatedBy: 0,
        });
    } else {
      unmatched.push({ ...base, reason: 'no_clicks', candidates: [] });
    }
  }

  // A tracker campaign is shared when clicks or mappings of more than one service campaign reach it.
  const mappedTo = new Map<string, number>();
  for (const x of chosen) mappedTo.set(x.trackerCampaignId, (mappedTo.get(x.trackerCampaignId) ?? 0) + 1);
  for (const x of chosen) {
    const t = titles.get(x.trackerCampaignId);
    const shared = (reach.get(x.trackerCampaignId)?.size ?? 0) > 1 || (mappedTo.get(x.trackerCampaignId) ?? 0) > 1;
    const hasSub3 = Boolean(bySub3.get(x.c.providerCampaignId)?.has(x.trackerCampaignId));
    let skipReason: string | null = null;
    if (!t) skipReason = 'tracker_campaign_missing';
    else if (t.autoCostUpdate) skipReason = 'auto_cost_update';
    else if (shared && !hasSub3) skipReason = 'shared_campaign_without_sub3';
    const mapping: Mapping = {
      providerCampaignId: x.c.providerCampaignId,
      svcCampaignName: x.c.name,
      provider: x.c.provider,
      trackerCampaignId: x.trackerCampaignId,
      trackerCampaignName: t?.title ?? rows.find((r) => r.trackerCampaignId === x.trackerCampaignId)?.trackerCampaignName ?? x.trackerCampaignId,
      source: x.source,
      matchedOn: x.matchedOn,
      pushable: skipReason === null,
      skipReason,
      updatedAt: x.updatedAt,
      updatedByUserId: x.updatedBy,
    };
    mappings.push(mapping);
    targets.push({ campaign: x.c, mapping, shared });
  }

  // Unmatched lists only campaigns that have spend: the others have nothing to push.
  const spending: Unmatched[] = [];
  for (const u of unmatched) {
    const c = campaigns.find((x) => x.providerCampaignId === u.providerCampaignId)!;
    if ((await recentSpend(deps, brandId, c)) > 0) spending.push(u);
  }
  return { list: { brandId, mappings, unmatched: spending, trackerCampaigns }, targets, connection };
}
