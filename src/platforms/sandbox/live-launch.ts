// A published launch placed straight into the sandbox: the launch, its live nodes and the simulated
// platform objects behind them, as a publish would have left them at `at`. The demo seeds one (a
// campaign that spends and gets no results, so a new user sees a rule fire); tests and the
// automation benchmark seed many.

import type { Knex } from 'knex';
import { newNodeId } from '../../launches/store.js';
import type { PlatformName } from '../port.js';
import { newPlatformId } from './adapter.js';

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
    const [launchId] = await trx('launches').insert({
      organization_id: o.organizationId,
      brand_id: o.brandId,
      account_id: o.accountId,
      title: o.title,
      description: null,
      status: 'published',
      status_reason: null,
      created_at: o.at,
      updated_at: o.at,
      published_at: o.at,
    });
    const nodes: Record<string, unknown>[] = [];
    const objects: Record<string, unknown>[] = [];
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
        launch_id: Number(launchId),
        parent_id: parent?.nodeId ?? null,
        node_type: level,
        account_id: o.accountId,
        name,
        properties: JSON.stringify({ name, ...properties }),
        platform_id: objectId,
        status: 'live',
        created_at: o.at,
        updated_at: o.at,
      });
      objects.push({
        platform: o.platform,
        account_id: o.accountId,
        level,
        object_id: objectId,
        parent_id: parent?.objectId ?? null,
        name,
        name_lower: name.toLowerCase(),
        marker: null,
        status,
        objective: level === 'campaign' ? 'OUTCOME_SALES' : null,
        budget_period: budget === null ? null : 'daily',
        budget_cents: budget,
        settings: '{}',
        created_at: o.at,
        updated_at: o.at,
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
    await trx.batchInsert('launch_nodes', nodes, 200);
    await trx.batchInsert('sandbox_objects', objects, 200);
    await trx.batchInsert(
      'sandbox_status_events',
      objects.map((x) => ({ object_id: x.object_id, status: x.status, at: o.at })),
      200,
    );
    return { launchId: Number(launchId), objects: seeded };
  });
}
