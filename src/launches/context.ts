// What validation and publishing need to know about a launch's brand: its ad accounts, the
// creatives and copy its ads name, and whether the click tracker is connected.

import type { OperationContext } from '../catalogue/define.js';
import type { PlatformName } from '../platforms/port.js';
import type { LaunchRow, NodeRow } from './store.js';
import type { ValidationContext } from './validate.js';

export async function validationContextFor(ctx: OperationContext, launch: Pick<LaunchRow, 'brandId' | 'accountId'>, nodes: NodeRow[]): Promise<ValidationContext> {
  const accounts = await ctx.db('ad_accounts').where({ brand_id: launch.brandId }).orderBy('id').select('account_id', 'platform');
  const creativeIds = [...new Set(nodes.map((n) => n.properties.creativeId).filter((id): id is number => typeof id === 'number'))];
  const found: number[] = creativeIds.length
    ? (await ctx.db('creatives').where({ brand_id: launch.brandId }).whereIn('id', creativeIds).pluck('id')).map(Number)
    : [];
  const copyIds = [...new Set(nodes.map((n) => n.properties.copyGenerationId).filter((id): id is number => typeof id === 'number'))];
  const copies = copyIds.length
    ? await ctx.db('copy_generations').where({ brand_id: launch.brandId }).whereIn('id', copyIds).select('id', 'platform')
    : [];
  const tracker = await ctx.db('tracker_connections').where({ brand_id: launch.brandId }).first('brand_id');
  return {
    accounts: new Map(accounts.map((a) => [a.account_id as string, a.platform as PlatformName])),
    defaultAccountId: launch.accountId ?? (accounts.length === 1 ? accounts[0].account_id : null),
    creativeIds: new Set(found),
    copies: new Map(copies.map((c) => [Number(c.id), c.platform as PlatformName])),
    trackerConnected: Boolean(tracker),
    now: ctx.now(),
  };
}

/** Creative rows by id, as ads carry them to the platform. */
export async function creativesFor(ctx: OperationContext, brandId: number, nodes: NodeRow[]): Promise<Map<number, Record<string, unknown>>> {
  const ids = [...new Set(nodes.map((n) => n.properties.creativeId).filter((id): id is number => typeof id === 'number'))];
  if (!ids.length) return new Map();
  const rows = await ctx.db('creatives').where({ brand_id: brandId }).whereIn('id', ids);
  return new Map(rows.map((r) => [Number(r.id), { id: Number(r.id), name: r.name, type: r.type, mime: r.mime, width: r.width, height: r.height, sha256: r.sha256 }]));
}
