// A published launch placed straight into the sandbox: the launch, its live nodes and the simulated
// platform objects behind them, as a publish would have left them at `at`. The demo seeds one (a
// campaign that spends and gets no results, so a new user sees a rule fire); tests and the
// automation benchmark seed many.

import type { Knex } from 'knex';
import { insertLaunch, insertNodes, markPublished, newNodeId, type NodeRow } from './store.js';
import type { PlatformName } from '../platforms/port.js';
import { newPlatformId } from '../platforms/sandbox/adapter.js';
import { insertObjects, type NewObject } from '../platforms/sandbox/store.js';

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

/** Inserts one published launch of `campaigns` on the brand's sandbox ad account, live since `at`. */
export async function seedLiveLaunch(
  knex: Knex,
  o: { organizationId: number; brandId: number; accountId: string; platform: PlatformName; title: string; at: number; campaigns: LiveCampaignSeed[] },
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
    return { launchId, objects: seeded };
  });
}
