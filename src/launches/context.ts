// What validation and publishing need to know about a launch's brand: its ad accounts, the
// creatives and copy its ads name, and whether the click tracker is connected.

import type { ServiceContext } from '../catalogue/define.js';
import { adAccountsOf } from '../brands/store.js';
import { copyPlatforms } from '../copy/store.js';
import { creativesAmong } from '../creatives/store.js';
import type { LaunchRow, NodeRow } from './store.js';
import type { ValidationContext } from './validate.js';

/** The numeric ids the nodes' properties name under `key` (creativeId, copyGenerationId), each once. */
const idsNamed = (nodes: NodeRow[], key: string) => [...new Set(nodes.map((n) => n.properties[key]).filter((id): id is number => typeof id === 'number'))];

/** The brand facts validateLaunch checks a tree against. */
export async function validationContextFor(
  ctx: ServiceContext<'trackers'>,
  launch: Pick<LaunchRow, 'brandId' | 'accountId'>,
  nodes: NodeRow[],
): Promise<ValidationContext> {
  const accounts = await adAccountsOf(ctx.db, launch.brandId);
  const creatives = await creativesAmong(ctx.db, launch.brandId, idsNamed(nodes, 'creativeId'));
  const copies = await copyPlatforms(ctx.db, launch.brandId, idsNamed(nodes, 'copyGenerationId'));
  const tracker = await ctx.trackers.stored(ctx.db, launch.brandId);
  return {
    accounts: new Map(accounts.map((a) => [a.accountId, a.platform])),
    defaultAccountId: launch.accountId ?? (accounts.length === 1 ? accounts[0].accountId : null),
    creativeIds: new Set(creatives.map((c) => c.id)),
    copies,
    trackerConnected: Boolean(tracker),
    now: ctx.now(),
  };
}

/** Creative rows by id, as ads carry them to the platform. */
export async function creativesFor(ctx: ServiceContext, brandId: number, nodes: NodeRow[]): Promise<Map<number, Record<string, unknown>>> {
  const rows = await creativesAmong(ctx.db, brandId, idsNamed(nodes, 'creativeId'));
  return new Map(rows.map((c) => [c.id, { id: c.id, name: c.name, type: c.type, mime: c.mime, width: c.width, height: c.height, sha256: c.sha256 }]));
}
