// The built-in simulated tracker (a connection whose baseUrl is `sandbox:`): one tracker campaign per ad
// account of the brand, whose clicks carry sub_id_3 = each live service campaign's id, with clicks
// and revenue derived deterministically from the campaign id and the date. Costs pushed to it are
// kept in sandbox_tracker_costs, set (never added) per campaign, range and sub_id_3 filter.

import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { datesBetween } from '../time/zones.js';
import { serviceCampaigns } from './campaigns.js';
import {
  TrackerError,
  type ClickRow,
  type CostRow,
  type CostUpdate,
  type ReportRange,
  type TrackerAdapter,
  type TrackerCampaign,
  type TrackerConnection,
} from './port.js';

/** The sandbox tracker campaign id of an ad account row. */
export const sandboxCampaignId = (adAccountRowId: number) => String(9000 + adAccountRowId);

export class SandboxTracker implements TrackerAdapter {
  constructor(
    private readonly knex: Knex,
    private readonly now: () => number,
  ) {}

  private async accounts(brandId: number) {
    return this.knex('ad_accounts').where({ brand_id: brandId }).orderBy('id').select('id', 'account_id', 'name');
  }

  async listCampaigns(conn: TrackerConnection): Promise<TrackerCampaign[]> {
    return (await this.accounts(conn.brandId)).map((a) => ({
      id: sandboxCampaignId(Number(a.id)),
      title: `${a.name ?? a.account_id} offers`,
      autoCostUpdate: false,
    }));
  }

  async clickReport(conn: TrackerConnection, range: ReportRange): Promise<ClickRow[]> {
    const accounts = new Map((await this.accounts(conn.brandId)).map((a) => [a.account_id as string, a]));
    const rows: ClickRow[] = [];
    for (const c of await serviceCampaigns(this.knex, conn.brandId)) {
      const account = accounts.get(c.accountId);
      if (!account) continue;
      let clicks = 0;
      let revenue = 0;
      for (const date of datesBetween(range.from, range.to)) {
        const digest = crypto.createHash('sha256').update(`${c.providerCampaignId}|${date}`).digest();
        const n = 20 + (digest.readUInt16BE(0) % 200);
        clicks += n;
        revenue += Math.floor(n * (0.02 + (digest.readUInt16BE(2) % 100) / 1000)) * (2000 + (digest.readUInt16BE(4) % 6000));
      }
      rows.push({
        trackerCampaignId: sandboxCampaignId(Number(account.id)),
        trackerCampaignName: `${account.name ?? account.account_id} offers`,
        sub3: c.providerCampaignId,
        campaignIdParam: c.providerCampaignId,
        clicks,
        revenueMinorUnits: revenue,
      });
    }
    return rows;
  }

  async costReport(conn: TrackerConnection, range: ReportRange): Promise<CostRow[]> {
    const rows = await this.knex('sandbox_tracker_costs')
      .where({ brand_id: conn.brandId, start_date: range.from, end_date: range.to })
      .select('tracker_campaign_id', 'sub_id_3', 'cost');
    return rows.map((r) => ({ trackerCampaignId: r.tracker_campaign_id, sub3: r.sub_id_3 || null, cost: r.cost }));
  }

  async updateCosts(conn: TrackerConnection, trackerCampaignId: string, u: CostUpdate): Promise<void> {
    const known = (await this.listCampaigns(conn)).some((c) => c.id === trackerCampaignId);
    if (!known) throw new TrackerError('not_found', `The sandbox tracker has no campaign ${trackerCampaignId}.`, { status: 404 });
    const now = this.now();
    await this.knex('sandbox_tracker_costs')
      .insert({
        brand_id: conn.brandId,
        tracker_campaign_id: trackerCampaignId,
        start_date: u.startDate,
        end_date: u.endDate,
        sub_id_3: u.sub3 ?? '',
        cost: u.cost,
        currency: u.currency,
        timezone: u.timezone,
        updated_at: now,
      })
      .onConflict(['brand_id', 'tracker_campaign_id', 'start_date', 'end_date', 'sub_id_3'])
      .merge({ cost: u.cost, currency: u.currency, timezone: u.timezone, updated_at: now });
  }
}
