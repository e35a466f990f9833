// Publishing a launch: reserve the amount against the ceiling, create every object on the ad
// platform (campaigns paused), record each platform id the moment it exists, activate, mark the
// launch published. Any failure undoes what exists and releases the reservation. A retry of a
// crashed publish resumes from the recorded ids and finds unrecorded objects by their marker.

import type { OwnTransactions, ServiceContext } from '../catalogue/define.js';
import { inTransaction } from '../db/connection.js';
import { ServiceError } from '../errors.js';
import { accountScope } from '../platforms/live-read.js';
import type { BrandAdAccount } from '../platforms/registry.js';
import type { ObjectLevel, ObjectRef, ObjectSpec } from '../platforms/port.js';
import { ceilingOf, commitmentAmount, commitmentOwner, releaseSpend, reserveSpend, reserving, type CeilingView } from './ceiling.js';
import type { Counted } from '../money/convert.js';
import {
  claimForPublishing,
  commitReserved,
  commitmentsOf,
  insertCommitments,
  markPublishFailed,
  markPublished,
  recordPlatformIds,
  renewPublishing,
  settleCommitment,
  touchLaunch,
  type LaunchRow,
  type NodeRow,
} from './store.js';
import { budgetOf, childrenOf, countsOf } from './tree.js';
import { creativesOnAccount, type AdCreative } from './creative-uploads.js';
import type { CreativeRow } from '../creatives/store.js';
import { IDEMPOTENCY_LEASE_MS } from '../pipeline/idempotency.js';

/** What publishing uses of its handler's context: it runs outside a transaction and opens its own. */
export type PublishContext = ServiceContext<'platforms' | 'metrics' | 'activity' | 'events' | 'progress'> & OwnTransactions;

const LEVELS: Array<'campaign' | 'adset' | 'ad'> = ['campaign', 'adset', 'ad'];
/** Objects created per adapter call: each chunk's ids are recorded before the next is sent. */
const CHUNK = 50;

export interface PublishPlan {
  launch: LaunchRow;
  nodes: NodeRow[];
  /** Ad account of each campaign node. */
  campaignAccounts: Map<string, string>;
  accounts: Map<string, BrandAdAccount>;
  /** What the publish counts against the ceiling: per ad account, and in US cents in total. */
  counted: Counted;
  /** Each campaign's amount in its ad account's minor units, for the activity log. */
  campaignAmounts: Map<string, number>;
  /** Creative rows by id, for the uploads of the ads' creatives. */
  creatives: Map<number, CreativeRow>;
  /** Where the creatives' files are (CREATIVES_DIR). */
  creativesDir: string;
}

/**
 * The node's properties as the adapter's settings. An ad speaks as its own page or identity, else its
 * account's (a Meta identity never goes to TikTok, nor the reverse).
 */
function settingsOf(node: NodeRow, account: BrandAdAccount): Record<string, unknown> {
  const { name: _n, budget: _b, objective: _o, status: _s, accountId: _a, ...rest } = node.properties;
  if (node.nodeType !== 'ad') return rest;
  const own = rest.pageId !== undefined || rest.identityId !== undefined;
  const speaker =
    account.platform === 'meta'
      ? { pageId: rest.pageId ?? account.pageId ?? null, instagramUserId: (own ? rest.instagramUserId : account.instagramUserId) ?? null }
      : { identityId: rest.identityId ?? account.identityId ?? null, identityType: (own ? rest.identityType : account.identityType) ?? null };
  return { ...rest, ...speaker };
}

function specOf(
  node: NodeRow,
  parentPlatformId: string | null,
  account: BrandAdAccount,
  objective: string | undefined,
  creatives: Map<number, AdCreative> | null,
): ObjectSpec {
  const p = node.properties;
  const status = node.nodeType === 'campaign' ? 'PAUSED' : node.nodeType === 'ad' ? (p.status ?? 'ACTIVE') : 'ACTIVE';
  return {
    level: node.nodeType,
    marker: node.id,
    name: p.name ?? node.id,
    parentId: parentPlatformId,
    status,
    objective,
    budget: node.nodeType === 'ad' ? null : budgetOf(p),
    settings: settingsOf(node, account),
    ...(node.nodeType === 'ad' ? { creative: typeof p.creativeId === 'number' ? (creatives?.get(p.creativeId) ?? null) : null } : {}),
  };
}

/** Runs the publish; on failure everything created is removed and the reservation released. Returns the ceiling after it. */
export async function publishLaunch(ctx: PublishContext, plan: PublishPlan, resume: boolean): Promise<CeilingView> {
  const knex = ctx.db;
  const { launch } = plan;
  const now = ctx.now();

  if (!resume) {
    await reserving(
      () =>
        inTransaction(knex, async (trx) => {
          const moved = await claimForPublishing(trx, launch.id, now);
          if (moved !== 1) throw new ServiceError('conflict', `Launch ${launch.id} is being published or is already published.`, { status: launch.status });
          await reserveSpend(trx, ctx.principal, plan.counted);
          // One commitment per ad account: what it counted in US cents, and its amount in its own currency.
          await insertCommitments(
            trx,
            plan.counted.accounts.map((part) => ({
              organizationId: ctx.principal.organizationId,
              ...commitmentOwner(ctx.principal),
              launchId: launch.id,
              nodeId: null,
              kind: 'publish' as const,
              ...commitmentAmount(part),
            })),
            now,
          );
        }),
      { ctx, brandId: launch.brandId, operation: 'launch-campaign' },
    );
  } else {
    // Take over a crashed publish only if nobody else did since we read the launch.
    const taken = await renewPublishing(knex, launch.id, launch.updatedAt, now);
    if (taken !== 1)
      throw new ServiceError('conflict', `Launch ${launch.id} is being published by another request; wait for it to finish.`, { status: 'publishing' });
  }
  // While it works, the publish keeps its claim fresh so that nobody mistakes it for a crashed one.
  let heartbeat = now;
  const timer = setInterval(
    () => {
      const at = ctx.now();
      renewPublishing(knex, launch.id, heartbeat, at)
        .then((n) => {
          if (n === 1) heartbeat = at;
        })
        .catch(() => {});
    },
    Math.max(200, Math.floor(IDEMPOTENCY_LEASE_MS / 3)),
  );
  timer.unref();
  /** Nodes whose create was sent but whose ids are not known: on failure, found by marker and removed. */
  let inFlight: NodeRow[] = [];

  const byId = new Map(plan.nodes.map((n) => [n.id, n]));
  const kids = childrenOf(plan.nodes);
  const accountOf = (n: NodeRow): BrandAdAccount => {
    let c = n;
    while (c.parentId) c = byId.get(c.parentId)!;
    return plan.accounts.get(plan.campaignAccounts.get(c.id)!)!;
  };
  const objectiveOf = (n: NodeRow): string | undefined => {
    let c = n;
    while (c.parentId) c = byId.get(c.parentId)!;
    return c.properties.objective;
  };

  // Progress counts the objects created on the platform, then one step to activate and record. The last
  // notification comes before that step, not with the answer, so it is never overtaken by it.
  const total = plan.nodes.filter((n) => !n.platformId).length + 1;
  let created = 0;
  ctx.progress({ progress: 0, total, message: `Creating ${total - 1} objects on the ad platform` });
  try {
    for (const level of LEVELS) {
      const pending = plan.nodes.filter((n) => n.nodeType === level && !n.platformId);
      const groups = new Map<string, NodeRow[]>();
      for (const n of pending) {
        const account = accountOf(n);
        const list = groups.get(account.accountId) ?? [];
        list.push(n);
        groups.set(account.accountId, list);
      }
      for (const [accountId, group] of groups) {
        const account = plan.accounts.get(accountId)!;
        const adapter = ctx.platforms.adapterFor(account.platform);
        let toCreate = group;
        if (resume) {
          // A crashed attempt may have created objects it never recorded: find them by marker.
          const found = await adapter.findCreated(
            account,
            level,
            group.map((n) => n.id),
          );
          const known = group.filter((n) => found.has(n.id));
          if (known.length) {
            await recordPlatformIds(
              knex,
              known,
              known.map((n) => found.get(n.id)!.id),
              ctx.now(),
            );
            created += known.length;
            ctx.progress({ progress: created, total, message: `Found ${created} of ${total - 1} objects already created` });
          }
          toCreate = group.filter((n) => !found.has(n.id));
        }
        // The ads' creatives go to the account first, once per creative and account.
        const creatives = level === 'ad' && toCreate.length ? await creativesOnAccount(ctx, account, toCreate, plan.creatives, plan.creativesDir) : null;
        for (let i = 0; i < toCreate.length; i += CHUNK) {
          const chunk = toCreate.slice(i, i + CHUNK);
          const specs = chunk.map((n) => specOf(n, n.parentId ? byId.get(n.parentId)!.platformId : null, account, objectiveOf(n), creatives));
          inFlight = chunk;
          const refs = await adapter.createObjects(account, specs);
          await inTransaction(knex, async (trx) => {
            const at = ctx.now();
            await recordPlatformIds(
              trx,
              chunk,
              refs.map((r) => r.id),
              at,
            );
            await touchLaunch(trx, launch.id, at);
            heartbeat = at;
          });
          inFlight = [];
          created += chunk.length;
          ctx.progress({ progress: created, total, message: `Created ${created} of ${total - 1} objects` });
        }
      }
    }
    ctx.progress({ progress: total, total, message: 'Activating the campaigns and recording the publish' });
    for (const [accountId, account] of plan.accounts) {
      const toActivate = (kids.get(null) ?? [])
        .filter((c) => plan.campaignAccounts.get(c.id) === accountId && (c.properties.status ?? 'ACTIVE') === 'ACTIVE')
        .map((c): ObjectRef => ({ level: 'campaign', id: c.platformId! }));
      if (toActivate.length) await ctx.platforms.adapterFor(account.platform).setStatus(account, toActivate, 'ACTIVE');
    }
    return await inTransaction(knex, async (trx) => {
      const at = ctx.now();
      await markPublished(trx, launch.id, at);
      await commitReserved(trx, launch.id, at);
      for (const c of kids.get(null) ?? []) {
        const accountId = plan.campaignAccounts.get(c.id)!;
        const money = { amountMinorUnits: plan.campaignAmounts.get(c.id) ?? 0, currency: plan.accounts.get(accountId)!.currency };
        await ctx.activity.record(
          {
            brandId: launch.brandId,
            accountId,
            entityType: 'campaign',
            entityId: c.id,
            entityName: c.properties.name ?? null,
            action: 'campaign.published',
            money,
          },
          trx,
        );
      }
      // What each ad account's part counted against the ceiling (rounded once per account, not per campaign).
      for (const part of plan.counted.accounts) {
        await ctx.activity.record(
          {
            brandId: launch.brandId,
            accountId: part.accountId,
            entityType: 'unknown',
            entityId: String(launch.id),
            entityName: launch.title,
            action: 'launch.published',
            money: { amountMinorUnits: part.amountMinorUnits, currency: part.currency, countedUsdCents: part.countedUsdCents },
          },
          trx,
        );
      }
      await ctx.events.emit(trx, {
        organizationId: ctx.principal.organizationId,
        brandId: launch.brandId,
        type: 'launch.published',
        data: {
          brandId: launch.brandId,
          launchId: String(launch.id),
          title: launch.title,
          accountIds: [...plan.accounts.keys()],
          counts: countsOf(plan.nodes),
          committedMinorUnits: plan.counted.totalUsdCents,
          accounts: plan.counted.accounts,
          actor: ctx.principal.actorLabel.slice(0, 255),
        },
      });
      return ceilingOf(trx, ctx.principal);
    });
  } catch (err) {
    clearInterval(timer);
    await undo(ctx, plan, accountOf, inFlight, err);
    throw err;
  } finally {
    clearInterval(timer);
    for (const account of plan.accounts.values()) await ctx.metrics.invalidate(accountScope(account)).catch(() => {});
  }
}

/** Removes every platform object of the launch (children first), releases the reservation, records why. */
async function undo(ctx: PublishContext, plan: PublishPlan, accountOf: (n: NodeRow) => BrandAdAccount, inFlight: NodeRow[], cause: unknown): Promise<void> {
  const knex = ctx.db;
  let leftovers = 0;
  // A failed call may have created part of its chunk before failing: find those by marker.
  const unknown = inFlight.filter((x) => !x.platformId);
  if (unknown.length) {
    // A chunk is one level of one ad account.
    const account = accountOf(unknown[0]);
    try {
      const found = await ctx.platforms.adapterFor(account.platform).findCreated(
        account,
        unknown[0].nodeType,
        unknown.map((n) => n.id),
      );
      for (const n of unknown) n.platformId = found.get(n.id)?.id ?? null;
    } catch (err) {
      ctx.log.error({ requestId: ctx.requestId, err, nodeIds: unknown.map((n) => n.id) }, 'could not look for partly created objects after a failed publish');
    }
  }
  for (const level of [...LEVELS].reverse() as ObjectLevel[]) {
    const groups = new Map<string, { account: BrandAdAccount; refs: ObjectRef[] }>();
    for (const n of plan.nodes.filter((x) => x.nodeType === level && x.platformId)) {
      const account = accountOf(n);
      const g = groups.get(account.accountId) ?? { account, refs: [] };
      g.refs.push({ level, id: n.platformId! });
      groups.set(account.accountId, g);
    }
    for (const { account, refs } of groups.values()) {
      try {
        await ctx.platforms.adapterFor(account.platform).deleteObjects(account, refs);
      } catch (err) {
        leftovers += refs.length;
        ctx.log.error({ requestId: ctx.requestId, err, refs }, 'could not remove platform objects after a failed publish');
      }
    }
  }
  const reason = cause instanceof ServiceError || (cause as Error)?.name === 'PlatformError' ? (cause as Error).message : 'internal error';
  await inTransaction(knex, async (trx) => {
    const at = ctx.now();
    for (const c of await commitmentsOf(trx, plan.launch.id, 'reserved')) {
      await releaseSpend(trx, c);
      await settleCommitment(trx, c.id, 'released', at);
    }
    const statusReason =
      `Publish failed: ${reason}${leftovers ? ` (${leftovers} platform objects could not be removed; they stay recorded on their nodes)` : ''}`.slice(0, 2000);
    await markPublishFailed(trx, plan.launch.id, statusReason, leftovers > 0, at);
    await ctx.events.emit(trx, {
      organizationId: ctx.principal.organizationId,
      brandId: plan.launch.brandId,
      type: 'launch.publish_failed',
      data: { brandId: plan.launch.brandId, launchId: String(plan.launch.id), reason: statusReason, actor: ctx.principal.actorLabel.slice(0, 255) },
    });
  });
  for (const n of plan.nodes) if (!leftovers) n.platformId = null;
}
