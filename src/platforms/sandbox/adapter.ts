// The sandbox ad platform: both platforms simulated in the service's own database, so it survives
// restarts and serves several processes. Ids have each platform's real format.

import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { isUniqueViolation } from '../../db/connection.js';
import {
  PlatformError,
  type AdAccount,
  type Budget,
  type CampaignPage,
  type CampaignQuery,
  type DateWindow,
  type Insights,
  type InsightsLevel,
  type LeadFormPage,
  type ObjectInsights,
  type ObjectLevel,
  type ObjectRef,
  type ObjectSpec,
  type OptionItem,
  type OptionType,
  type PlatformAdapter,
  type PlatformCampaign,
  type PlatformName,
  type PlatformStatus,
} from '../port.js';
import { CONVERSION_EVENTS, INTERESTS, LOCATIONS } from './catalog.js';
import { NO_INSIGHTS, addInsights, deliver, type Delivery, type StatusChange } from './delivery.js';
import { perObject } from '../insights.js';

/** A name carrying these words marks the sandbox's "spends, no results" objects (they and their children never convert). */
export const NO_RESULTS_MARK = /no results/i;

function chunks<T>(list: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

type TreeRow = { object_id: string; parent_id: string | null; name: string; budget_period: string | null; budget_cents: number | string | null };

function budgetOf(row: TreeRow, share = 1): Budget | null {
  if (row.budget_cents === null) return null;
  return { period: row.budget_period as Budget['period'], amountMinorUnits: Math.floor(Number(row.budget_cents) / share) };
}

const ASSET_KINDS: Partial<Record<OptionType, string>> = { pixels: 'pixels', pages: 'pages', audiences: 'audiences', profileAccounts: 'profileAccounts' };

function randomDigits(n: number): string {
  let out = '';
  for (const b of crypto.randomBytes(n)) out += String(b % 10);
  return out;
}

/** A new object id in the platform's format: Meta 17-digit numeric, TikTok 19-digit numeric. */
export function newPlatformId(platform: PlatformName): string {
  return platform === 'meta' ? `1202${randomDigits(13)}` : `17${randomDigits(17)}`;
}

function likePattern(text: string): string {
  return `%${text.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`)}%`;
}

function toCampaign(row: Record<string, any>): PlatformCampaign {
  const budget: Budget | null = row.budget_cents === null ? null : { period: row.budget_period, amountMinorUnits: Number(row.budget_cents) };
  return {
    id: row.object_id,
    name: row.name,
    status: row.status,
    effectiveStatus: row.status,
    objective: row.objective ?? 'OUTCOME_TRAFFIC',
    budget,
    budgetLevel: budget ? 'campaign' : 'adset',
    createdAt: new Date(Number(row.created_at)).toISOString(),
  };
}

export class SandboxPlatform implements PlatformAdapter {
  constructor(
    readonly platform: PlatformName,
    private readonly knex: Knex,
    private readonly now: () => number = Date.now,
  ) {}

  private objects(account: AdAccount, level: ObjectLevel) {
    return this.knex('sandbox_objects').where({ account_id: account.accountId, level });
  }

  async listCampaigns(account: AdAccount, query: CampaignQuery): Promise<CampaignPage> {
    const filters: Array<[string, unknown[]]> = [];
    if (query.statuses?.length) filters.push([`status in (${query.statuses.map(() => '?').join(', ')})`, query.statuses]);
    if (query.nameQuery) filters.push(["name_lower like ? escape '!'", [likePattern(query.nameQuery)]]);
    // MariaDB otherwise scans backwards from the newest row to reach a deep keyset position.
    const table =
      this.knex.client.config.client === 'mysql2'
        ? this.knex.raw('?? force index (??)', ['sandbox_objects', 'sandbox_objects_account_id_level_id_index'])
        : 'sandbox_objects';
    const page = this.knex(table as string)
      .where({ account_id: account.accountId, level: 'campaign' })
      .whereNot('status', 'DELETED')
      .orderBy('id', 'desc')
      .limit(query.limit + 1);
    for (const [sql, bindings] of filters) page.whereRaw(sql, bindings as never[]);
    if (query.after) {
      if (!/^\d+$/.test(query.after)) throw new PlatformError('invalid_request', 'The paging position is not valid.', { field: 'after' });
      page.where('id', '<', Number(query.after));
    }
    // Both totals in one pass: every campaign, and those matching the filters.
    const matchedSql = filters.length ? `sum(case when ${filters.map(([sql]) => sql).join(' and ')} then 1 else 0 end)` : 'count(*)';
    const [totals, rows] = await Promise.all([
      this.objects(account, 'campaign')
        .whereNot('status', 'DELETED')
        .first(this.knex.raw(`count(*) as total, ${matchedSql} as matched`, filters.flatMap(([, b]) => b) as never[])),
      page.select('id', 'object_id', 'name', 'status', 'objective', 'budget_period', 'budget_cents', 'created_at'),
    ]);
    const items = rows.slice(0, query.limit);
    return {
      campaigns: items.map(toCampaign),
      totalInAccount: Number(totals?.total ?? 0),
      matched: Number(totals?.matched ?? 0),
      after: rows.length > query.limit ? String(items[items.length - 1].id) : null,
    };
  }

  async listLeadForms(account: AdAccount, pageId: string, after: string | null, limit: number): Promise<LeadFormPage> {
    const q = this.knex('sandbox_assets')
      .where({ account_id: account.accountId, kind: 'leadForms', page_id: pageId })
      .orderBy('id')
      .limit(limit + 1);
    if (after) q.where('id', '>', Number(after));
    const rows = await q.select('id', 'asset_id', 'name');
    const items = rows.slice(0, limit);
    return {
      leadForms: items.map((r) => ({ id: r.asset_id, name: r.name ?? null })),
      after: rows.length > limit ? String(items[items.length - 1].id) : null,
    };
  }

  async listOptions(account: AdAccount, type: OptionType, query?: string): Promise<OptionItem[]> {
    if (type === 'pages' && this.platform === 'tiktok') {
      throw new PlatformError('capability_unsupported', 'TikTok ad accounts have no pages; use profileAccounts (TikTok identities).');
    }
    const needle = query?.toLowerCase();
    const matches = (item: OptionItem) => !needle || item.name.toLowerCase().includes(needle) || item.id.toLowerCase() === needle;
    const kind = ASSET_KINDS[type];
    if (kind) {
      const rows = await this.knex('sandbox_assets').where({ account_id: account.accountId, kind }).orderBy('id').select('payload');
      return rows
        .map((r) => {
          const { accountId: _omit, ...item } = JSON.parse(r.payload) as OptionItem & { accountId: string };
          return item as OptionItem;
        })
        .filter(matches);
    }
    const builtIn = type === 'interests' ? INTERESTS : type === 'locations' ? LOCATIONS : CONVERSION_EVENTS;
    return builtIn.filter(matches);
  }

  private async histories(ids: string[]): Promise<Map<string, StatusChange[]>> {
    const out = new Map<string, StatusChange[]>();
    if (!ids.length) return out;
    const rows = await this.knex('sandbox_status_events').whereIn('object_id', ids).orderBy(['object_id', 'at', 'id']).select('object_id', 'status', 'at');
    for (const r of rows) {
      const list = out.get(r.object_id) ?? [];
      list.push({ status: r.status, at: Number(r.at) });
      out.set(r.object_id, list);
    }
    return out;
  }

  async insights(account: AdAccount, objectIds: string[], window: DateWindow): Promise<Insights> {
    if (!objectIds.length) return NO_INSIGHTS;
    const campaigns = await this.objects(account, 'campaign').whereIn('object_id', objectIds).select('object_id', 'budget_period', 'budget_cents');
    const adsets = await this.objects(account, 'adset')
      .whereIn(
        'parent_id',
        campaigns.map((c) => c.object_id),
      )
      .select('object_id', 'parent_id', 'budget_period', 'budget_cents');
    const history = await this.histories([...campaigns.map((c) => c.object_id), ...adsets.map((a) => a.object_id)]);
    const now = this.now();
    let total = NO_INSIGHTS;
    for (const c of campaigns) {
      const campaignHistory = history.get(c.object_id) ?? [];
      if (c.budget_cents !== null) {
        const budget = { period: c.budget_period, amountMinorUnits: Number(c.budget_cents) };
        total = addInsights(total, deliver({ id: c.object_id, budget, history: campaignHistory }, window, account.timezone, now));
        continue;
      }
      for (const a of adsets.filter((s) => s.parent_id === c.object_id && s.budget_cents !== null)) {
        const budget = { period: a.budget_period, amountMinorUnits: Number(a.budget_cents) };
        total = addInsights(
          total,
          deliver({ id: a.object_id, budget, history: history.get(a.object_id) ?? [] }, window, account.timezone, now, [campaignHistory]),
        );
      }
    }
    return total;
  }

  private async rowsOf(account: AdAccount, level: ObjectLevel, column: 'object_id' | 'parent_id', ids: string[]): Promise<TreeRow[]> {
    const out: TreeRow[] = [];
    for (const part of chunks([...new Set(ids)], 500)) {
      out.push(...(await this.objects(account, level).whereIn(column, part).select('object_id', 'parent_id', 'name', 'budget_period', 'budget_cents')));
    }
    return out;
  }

  /** Children per parent among every object of `level` under `parentIds` (the share each gets of a parent's budget). */
  private async childCounts(account: AdAccount, level: ObjectLevel, parentIds: string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const part of chunks([...new Set(parentIds)], 500)) {
      const rows: Array<{ parent_id: string; n: number | string }> = await this.objects(account, level)
        .whereIn('parent_id', part)
        .whereNot('status', 'DELETED')
        .groupBy('parent_id')
        .select('parent_id', this.knex.raw('count(*) as n'));
      for (const r of rows) out.set(String(r.parent_id), Number(r.n));
    }
    return out;
  }

  /**
   * Per-object delivery. A campaign with a budget delivers it; one without sums its ad sets. An ad
   * set without a budget gets an even share of its campaign's; an ad an even share of its ad set's
   * (or of its ad set's share). Each object is gated by its own status and its parents'.
   */
  async insightsByObject(account: AdAccount, level: InsightsLevel, objectIds: string[], window: DateWindow): Promise<ObjectInsights[]> {
    const ids = [...new Set(objectIds)];
    if (!ids.length) return [];
    const ads = level === 'ad' ? await this.rowsOf(account, 'ad', 'object_id', ids) : [];
    const adsets =
      level === 'campaign'
        ? await this.rowsOf(account, 'adset', 'parent_id', ids)
        : await this.rowsOf(account, 'adset', 'object_id', level === 'adset' ? ids : ads.map((a) => a.parent_id!));
    const campaigns = await this.rowsOf(account, 'campaign', 'object_id', level === 'campaign' ? ids : adsets.map((a) => a.parent_id!));
    const adsetsPerCampaign =
      level === 'campaign'
        ? new Map<string, number>()
        : await this.childCounts(
            account,
            'adset',
            campaigns.map((c) => c.object_id),
          );
    const adsPerAdset =
      level === 'ad'
        ? await this.childCounts(
            account,
            'ad',
            adsets.map((a) => a.object_id),
          )
        : new Map<string, number>();
    const history = await this.histories([...campaigns, ...adsets, ...ads].map((r) => r.object_id));
    const byId = new Map([...campaigns, ...adsets].map((r) => [r.object_id, r]));
    const now = this.now();
    const h = (id: string) => history.get(id) ?? [];
    const converts = (...rows: Array<TreeRow | undefined>) => !rows.some((r) => r && NO_RESULTS_MARK.test(r.name));
    /** The budget an ad set delivers on: its own, or its share of its campaign's. */
    const adsetBudget = (a: TreeRow): Budget | null => {
      if (a.budget_cents !== null) return budgetOf(a);
      const c = byId.get(a.parent_id!);
      return c ? budgetOf(c, adsetsPerCampaign.get(c.object_id) ?? 1) : null;
    };
    const out = new Map<string, Delivery>();
    if (level === 'campaign') {
      for (const c of campaigns) {
        if (c.budget_cents !== null) {
          out.set(
            c.object_id,
            deliver({ id: c.object_id, budget: budgetOf(c), history: h(c.object_id), converts: converts(c) }, window, account.timezone, now),
          );
          continue;
        }
        const parts = adsets
          .filter((a) => a.parent_id === c.object_id && a.budget_cents !== null)
          .map((a) =>
            deliver({ id: a.object_id, budget: budgetOf(a), history: h(a.object_id), converts: converts(c, a) }, window, account.timezone, now, [
              h(c.object_id),
            ]),
          );
        const total = parts.reduce<Insights>((sum, d) => addInsights(sum, d), NO_INSIGHTS);
        out.set(c.object_id, { ...total, reach: parts.reduce((sum, d) => sum + d.reach, 0) });
      }
    } else if (level === 'adset') {
      for (const a of adsets) {
        const c = byId.get(a.parent_id!);
        out.set(
          a.object_id,
          deliver({ id: a.object_id, budget: adsetBudget(a), history: h(a.object_id), converts: converts(c, a) }, window, account.timezone, now, [
            h(a.parent_id!),
          ]),
        );
      }
    } else {
      for (const ad of ads) {
        const a = byId.get(ad.parent_id!);
        if (!a) continue;
        const budget = adsetBudget(a);
        const share = budget ? { ...budget, amountMinorUnits: Math.floor(budget.amountMinorUnits / (adsPerAdset.get(a.object_id) ?? 1)) } : null;
        const gates = [h(a.object_id), h(a.parent_id!)];
        out.set(
          ad.object_id,
          deliver(
            { id: ad.object_id, budget: share, history: h(ad.object_id), converts: converts(byId.get(a.parent_id!), a, ad) },
            window,
            account.timezone,
            now,
            gates,
          ),
        );
      }
    }
    return perObject(ids, out);
  }

  async createObjects(account: AdAccount, specs: ObjectSpec[]): Promise<ObjectRef[]> {
    const now = this.now();
    for (;;) {
      const refs = specs.map((s) => ({ level: s.level, id: newPlatformId(this.platform) }));
      const rows = specs.map((s, i) => ({
        platform: this.platform,
        account_id: account.accountId,
        level: s.level,
        object_id: refs[i].id,
        parent_id: s.parentId,
        name: s.name,
        name_lower: s.name.toLowerCase(),
        marker: s.marker,
        status: s.status,
        objective: s.objective ?? null,
        budget_period: s.budget?.period ?? null,
        budget_cents: s.budget?.amountMinorUnits ?? null,
        settings: JSON.stringify(s.settings ?? {}),
        created_at: now,
        updated_at: now,
      }));
      try {
        await this.knex.transaction(async (trx) => {
          await trx.batchInsert('sandbox_objects', rows, 200);
          await trx.batchInsert(
            'sandbox_status_events',
            refs.map((r, i) => ({ object_id: r.id, status: specs[i].status, at: now })),
            200,
          );
        });
        return refs;
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
      }
    }
  }

  async findByMarker(account: AdAccount, level: ObjectLevel, marker: string): Promise<ObjectRef | null> {
    const row = await this.objects(account, level).where({ marker }).first('object_id');
    return row ? { level, id: row.object_id } : null;
  }

  private async existing(account: AdAccount, refs: ObjectRef[]): Promise<void> {
    const ids = refs.map((r) => r.id);
    const found = await this.knex('sandbox_objects').where('account_id', account.accountId).whereIn('object_id', ids).pluck('object_id');
    const missing = ids.filter((id) => !found.includes(id));
    if (missing.length) throw new PlatformError('not_found', `No object ${missing[0]} in ad account ${account.accountId}.`);
  }

  async updateObject(account: AdAccount, ref: ObjectRef, changes: { name?: string; settings?: Record<string, unknown> }): Promise<void> {
    await this.existing(account, [ref]);
    const row = await this.knex('sandbox_objects').where({ object_id: ref.id }).first('settings');
    const update: Record<string, unknown> = { updated_at: this.now() };
    if (changes.name !== undefined) Object.assign(update, { name: changes.name, name_lower: changes.name.toLowerCase() });
    if (changes.settings) update.settings = JSON.stringify({ ...JSON.parse(row.settings), ...changes.settings });
    await this.knex('sandbox_objects').where({ object_id: ref.id }).update(update);
  }

  private async changeStatus(account: AdAccount, refs: ObjectRef[], status: PlatformStatus, check = true): Promise<void> {
    if (!refs.length) return;
    if (check) await this.existing(account, refs);
    const now = this.now();
    const ids = refs.map((r) => r.id);
    await this.knex.transaction(async (trx) => {
      await trx('sandbox_objects').whereIn('object_id', ids).update({ status, updated_at: now });
      await trx.batchInsert(
        'sandbox_status_events',
        ids.map((id) => ({ object_id: id, status, at: now })),
        200,
      );
    });
  }

  setStatus(account: AdAccount, refs: ObjectRef[], status: 'ACTIVE' | 'PAUSED'): Promise<void> {
    return this.changeStatus(account, refs, status);
  }

  async setStatusEach(account: AdAccount, refs: ObjectRef[], status: 'ACTIVE' | 'PAUSED'): Promise<Array<PlatformError | null>> {
    if (!refs.length) return [];
    const found = new Set<string>();
    for (const part of chunks([...new Set(refs.map((r) => r.id))], 500)) {
      for (const id of await this.knex('sandbox_objects').where('account_id', account.accountId).whereIn('object_id', part).pluck('object_id')) found.add(id);
    }
    const known = refs.filter((r) => found.has(r.id));
    if (known.length) await this.changeStatus(account, known, status, false);
    return refs.map((r) => (found.has(r.id) ? null : new PlatformError('not_found', `No object ${r.id} in ad account ${account.accountId}.`)));
  }

  async setBudget(account: AdAccount, ref: ObjectRef, budget: Budget): Promise<void> {
    if (ref.level !== 'campaign' && ref.level !== 'adset') {
      throw new PlatformError('capability_unsupported', `A budget can be set on a campaign or an ad set, not on a ${ref.level}.`);
    }
    await this.existing(account, [ref]);
    await this.knex('sandbox_objects')
      .where({ object_id: ref.id })
      .update({ budget_period: budget.period, budget_cents: budget.amountMinorUnits, updated_at: this.now() });
  }

  deleteObjects(account: AdAccount, refs: ObjectRef[]): Promise<void> {
    return this.changeStatus(account, refs, 'DELETED');
  }
}
