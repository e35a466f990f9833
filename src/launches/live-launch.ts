// A published launch placed straight into the sandbox: the launch, its live nodes and the simulated
// platform objects behind them, as a publish would have left them at `at`. The demo seeds one (a
// campaign that spends and gets no results, so a new user sees a rule fire); tests and the
// automation benchmark seed many.

import type { Knex } from 'knex';
import { insertLaunch, insertNodes, markPublished, newNodeId, type NodeRow } from './store.js';
import type { PlatformName } from '../platforms/port.js';
import { newPlatformId } from '../platforms/sandbox/adapter.js';
import { insertObjects, type NewObject } from '../platforms/sandbox/store.js';
import { insertActivityEntries, type ActivityEntryRow } from '../activity/store.js';

export interface LiveCampaignSeed {
  name: string;
  /** Campaign daily budget in minor units (campaign budget: ad sets and ads share it). */
  dailyBudget: number;
  status?: 'ACTIVE' | 'PAUSED';
  adSets?: number;
  adsPerAdSet?: number;
}

export interface SeededObject {
  nodeId: string;
  objectId: string;
  level: 'campaign' | 'adset' | 'ad';
  name: string;
}

export interface SeededLaunch {
  launchId: number;
  objects: SeededObject[];
}

/**
 * Inserts one published launch of `campaigns` on the brand's sandbox ad account, live since `at`.
 * With `publishedBy`, the activity log has its publish as a publish leaves it (each campaign, then
 * the launch with its amount), so the launch's page and the log agree that it was published.
 */
export async function seedLiveLaunch(
  knex: Knex,
  o: {
    organizationId: number;
    brandId: number;
    accountId: string;
    platform: PlatformName;
    title: string;
    at: number;
    campaigns: LiveCampaignSeed[];
    publishedBy?: { userId: number; userName: string; apiKeyId: number | null; currency: string };
  },
): Promise<SeededLaunch> {
  return knex.transaction(async (trx) => {
    const launchId = await insertLaunch(trx, {
      organizationId: o.organizationId,
      brandId: o.brandId,
      accountId: o.accountId,
      title: o.title,
      description: null,
      status: 'published',
      createdAt: o.at,
      updatedAt: o.at,
    });
    const nodes: NodeRow[] = [];
    const objects: NewObject[] = [];
    const seeded: SeededObject[] = [];
    const add = (
      level: SeededObject['level'],
      name: string,
      parent: { nodeId: string; objectId: string } | null,
      status: string,
      budget: number | null,
      properties: Record<string, unknown>,
    ) => {
      const nodeId = newNodeId();
      const objectId = newPlatformId(o.platform);
      nodes.push({
        id: nodeId,
        launchId,
        parentId: parent?.nodeId ?? null,
        nodeType: level,
        accountId: o.accountId,
        name,
        properties: { name, ...properties },
        platformId: objectId,
        status: 'live',
        createdAt: o.at,
        updatedAt: o.at,
      });
      objects.push({
        platform: o.platform,
        accountId: o.accountId,
        level,
        objectId,
        parentId: parent?.objectId ?? null,
        name,
        marker: null,
        status,
        objective: level === 'campaign' ? 'OUTCOME_SALES' : null,
        budget: budget === null ? null : { period: 'daily', amountMinorUnits: budget },
        settings: {},
        at: o.at,
      });
      seeded.push({ nodeId, objectId, level, name });
      return { nodeId, objectId };
    };
    for (const c of o.campaigns) {
      const status = c.status ?? 'ACTIVE';
      const campaign = add('campaign', c.name, null, status, c.dailyBudget, { status, objective: 'OUTCOME_SALES', budget: { dailyAmount: c.dailyBudget } });
      for (let s = 0; s < (c.adSets ?? 0); s++) {
        const adset = add('adset', `${c.name} - set ${s + 1}`, campaign, 'ACTIVE', null, {});
        for (let a = 0; a < (c.adsPerAdSet ?? 0); a++) add('ad', `${c.name} - set ${s + 1} - ad ${a + 1}`, adset, 'ACTIVE', null, { status: 'ACTIVE' });
      }
    }
    await insertNodes(trx, nodes);
    await markPublished(trx, launchId, o.at);
    await insertObjects(trx, objects);
    if (o.publishedBy) {
      const by = o.publishedBy;
      const entry = (e: Pick<ActivityEntryRow, 'entityType' | 'entityId' | 'entityName' | 'action' | 'amountMinorUnits'>): ActivityEntryRow => ({
        organizationId: o.organizationId,
        brandId: o.brandId,
        accountId: o.accountId,
        userId: by.userId,
        userName: by.userName,
        apiKeyId: by.apiKeyId,
        currency: by.currency,
        countedUsdCents: by.currency === 'USD' ? e.amountMinorUnits : null,
        createdAt: o.at,
        ...e,
      });
      const campaigns = nodes.filter((n) => n.nodeType === 'campaign');
      await insertActivityEntries(trx, [
        ...campaigns.map((c) =>
          entry({
            entityType: 'campaign',
            entityId: c.id,
            entityName: c.name,
            action: 'campaign.published',
            amountMinorUnits: Number(c.properties.budget && (c.properties.budget as { dailyAmount: number }).dailyAmount),
          }),
        ),
        entry({
          entityType: 'unknown',
          entityId: String(launchId),
          entityName: o.title,
          action: 'launch.published',
          amountMinorUnits: o.campaigns.reduce((sum, c) => sum + c.dailyBudget, 0),
        }),
      ]);
    }
    return { launchId, objects: seeded };
  });
}
