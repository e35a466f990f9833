// The click-tracker port and the trackers service as a handler's context names them: src/trackers/
// implements both (registry.ts's Trackers, the Keitaro and sandbox adapters); they sit here, below
// the areas, so the catalogue and the job services need not import the tracker area.

import type { Knex } from 'knex';
import type { SecretBox } from '../auth/encryption.js';
import type { Origin } from '../outbound/address-policy.js';

/** A brand's connection, key opened. */
export interface TrackerConnection {
  brandId: number;
  baseUrl: string;
  apiKey: string;
  /** Who gave baseUrl: the bootstrap file (operator, called as given) or the API (caller, the outbound address rule). */
  origin: Origin;
}

export interface TrackerCampaign {
  id: string;
  title: string;
  /** The tracker campaign computes its own cost (Keitaro `cost_auto`): a pushed cost would be overwritten. */
  autoCostUpdate: boolean;
}

/** Local dates (YYYY-MM-DD), both ends inclusive, in `timezone`. */
export interface ReportRange {
  from: string;
  to: string;
  timezone: string;
}

/** Clicks of one tracker campaign, for one value of sub3 and of the campaign-id click parameter. */
export interface ClickRow {
  trackerCampaignId: string;
  trackerCampaignName: string;
  /** `sub_id_3`: the ad platform campaign id the ad's URL tags carried; null when absent. */
  sub3: string | null;
  /** The fallback click parameter `tracker_campaign_id` (Keitaro's `ad_campaign_id`); null when absent. */
  campaignIdParam: string | null;
  clicks: number;
  revenueMinorUnits: number;
}

/** One `update_costs` call: sets (never adds) the cost of the range, optionally only for clicks with that sub3. */
export interface CostUpdate {
  startDate: string;
  endDate: string;
  /** Decimal string in `currency`, converted exactly from minor units. */
  cost: string;
  currency: string;
  timezone: string;
  sub3: string | null;
}

/** Cost the tracker holds for one campaign and sub_id_3 value (null: clicks without sub3) over a range. */
export interface CostRow {
  trackerCampaignId: string;
  sub3: string | null;
  /** Decimal string as the tracker reports it. */
  cost: string;
}

/** Conversions and revenue per sub_id_3 value (an ad platform campaign id) over a range, in the tracker's currency. */
export interface RevenueReport {
  /** The currency the tracker reports revenue in. */
  currency: string;
  /** One row per sub_id_3, or per sub_id_3 and day (`day`, YYYY-MM-DD in the range's time zone) when asked by day. */
  rows: Array<{ sub3: string; day?: string; conversions: number; revenueMinorUnits: number }>;
}

export interface TrackerAdapter {
  listCampaigns(conn: TrackerConnection): Promise<TrackerCampaign[]>;
  clickReport(conn: TrackerConnection, range: ReportRange): Promise<ClickRow[]>;
  updateCosts(conn: TrackerConnection, trackerCampaignId: string, update: CostUpdate): Promise<void>;
  /** The cost the tracker holds per campaign and sub_id_3 over the range (read back after a final push). */
  costReport(conn: TrackerConnection, range: ReportRange): Promise<CostRow[]>;
  /** Conversions and revenue of the clicks whose sub_id_3 is one of `sub3s`, grouped by sub_id_3: one report request. */
  revenueReport(conn: TrackerConnection, range: ReportRange, sub3s: string[], opts?: { byDay?: boolean }): Promise<RevenueReport>;
}

export interface StoredConnection {
  brandId: number;
  baseUrl: string;
  baseUrlOrigin: Origin;
  apiKeySealed: string;
  apiKeyLast4: string;
  createdAt: number;
  updatedAt: number | null;
}

/** Waits between tracker requests. */
export type Sleep = (ms: number) => Promise<void>;

/** The trackers service (src/trackers/registry.ts): the adapter of a connection and the brand's connection. */
export interface TrackerService {
  /** Waits between tracker requests; tests pass one that moves their fixed clock. */
  readonly sleep: Sleep;
  /** The adapter that serves a connection. */
  adapterFor(conn: TrackerConnection): TrackerAdapter;
  /** The brand's stored connection, or null when no tracker is connected. */
  stored(db: Knex | Knex.Transaction, brandId: number): Promise<StoredConnection | null>;
  /** The brand's connection with its key opened, or null. */
  connection(db: Knex | Knex.Transaction, secrets: SecretBox, brandId: number): Promise<TrackerConnection | null>;
}
