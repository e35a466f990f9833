// The built-in simulated tracker (a connection whose baseUrl is `sandbox:`): one tracker campaign per ad
// account of the brand, whose clicks carry sub_id_3 = each live service campaign's id, with clicks
// and revenue derived deterministically from the campaign id and the date. Costs pushed to it are
// kept in sandbox_tracker_costs (store.ts), set (never added) per campaign, range and sub_id_3 filter.

import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { adAccountRowsOf } from '../brands/store.js';
import { datesBetween } from '../time/zones.js';
import { serviceCampaigns } from './campaigns.js';
import { sandboxCosts, setSandboxCost } from './store.js';
import {
  TrackerError,
  type ClickRow,
  type CostRow,
  type CostUpdate,
  type ReportRange,
  type RevenueReport,
  type TrackerAdapter,
  type TrackerCampaign,
  type TrackerConnection,
} from './port.js';

/** The sandbox tracker campaign id of an ad account row. */
export const sandboxCampaignId = (adAccountRowId: number) => String(9000 + adAccountRowId);

/** The sandbox tracker's clicks, converting clicks and revenue (USD cents) of one campaign id on one date. */
function sandboxDay(sub3: string, date: string): { clicks: number; converted: number; orderValue: number; value: number } {
  const digest = crypto.createHash('sha256').update(`${sub3}|${date}`).digest();
  const clicks = 20 + (digest.readUInt16BE(0) % 200);
  const converted = Math.floor(clicks * (0.02 + (digest.readUInt16BE(2) % 100) / 1000));
  const orderValue = 2000 + (digest.readUInt16BE(4) % 6000);
  return { clicks, converted, orderValue, value: converted * orderValue };
}

export class SandboxTracker implements TrackerAdapter {
  constructor(
    private readonly knex: Knex,
    private readonly now: () => number,
  ) {}

  async listCampaigns(conn: TrackerConnection): Promise<TrackerCampaign[]> {
    return (await adAccountRowsOf(this.knex, conn.brandId)).map((a) => ({
      id: sandboxCampaignId(a.rowId),
      title: `${a.name ?? a.accountId} offers`,
      autoCostUpdate: false,
    }));
  }

  async clickReport(conn: TrackerConnection, range: ReportRange): Promise<ClickRow[]> {
    const accounts = new Map((await adAccountRowsOf(this.knex, conn.brandId)).map((a) => [a.accountId, a]));
    const rows: ClickRow[] = [];
    for (const c of await serviceCampaigns(this.knex, conn.brandId)) {
      const account = accounts.get(c.accountId);
      if (!account) continue;
      let clicks = 0;
      let revenue = 0;
      for (const date of datesBetween(range.from, range.to)) {
        const day = sandboxDay(c.providerCampaignId, date);
        clicks += day.clicks;
        revenue += day.value;
      }
      rows.push({
        trackerCampaignId: sandboxCampaignId(account.rowId),
        trackerCampaignName: `${account.name ?? account.accountId} offers`,
        sub3: c.providerCampaignId,
        campaignIdParam: c.providerCampaignId,
        clicks,
        revenueMinorUnits: revenue,
      });
    }
    return rows;
  }

  /**
   * Revenue of the given campaigns from the same deterministic clicks as clickReport (a campaign's
   * conversions are the converting clicks), whether or not the service launched them: the demo's
   * reports and rules on profit read the same figures for the same campaigns and dates.
   */
  async revenueReport(_conn: TrackerConnection, range: ReportRange, sub3s: string[], opts: { byDay?: boolean } = {}): Promise<RevenueReport> {
    const rows: RevenueReport['rows'] = [];
    for (const sub3 of new Set(sub3s)) {
      let conversions = 0;
      let revenue = 0;
      for (const date of datesBetween(range.from, range.to)) {
        // Orders of $3 to $12 here, so that the demo's campaigns land on either side of a ROAS of 1.
        const { converted, orderValue } = sandboxDay(sub3, date);
        const earned = converted * Math.floor(orderValue / 7);
        if (opts.byDay && converted) rows.push({ sub3, day: date, conversions: converted, revenueMinorUnits: earned });
        conversions += converted;
        revenue += earned;
      }
      if (conversions && !opts.byDay) rows.push({ sub3, conversions, revenueMinorUnits: revenue });
    }
    return { currency: 'USD', rows };
  }

  async costReport(conn: TrackerConnection, range: ReportRange): Promise<CostRow[]> {
    const rows = await sandboxCosts(this.knex, conn.brandId, range.from, range.to);
    return rows.map((r) => ({ trackerCampaignId: r.trackerCampaignId, sub3: r.sub3 || null, cost: r.cost }));
  }

  async updateCosts(conn: TrackerConnection, trackerCampaignId: string, u: CostUpdate): Promise<void> {
    const known = (await this.listCampaigns(conn)).some((c) => c.id === trackerCampaignId);
    if (!known) throw new TrackerError('not_found', `The sandbox tracker has no campaign ${trackerCampaignId}.`, { status: 404 });
    await setSandboxCost(
      this.knex,
      {
        brandId: conn.brandId,
        trackerCampaignId,
        startDate: u.startDate,
        endDate: u.endDate,
        sub3: u.sub3 ?? '',
        cost: u.cost,
        currency: u.currency,
        timezone: u.timezone,
      },
      this.now(),
    );
  }
}
