// Publishing a launch as a recoverable state machine with the ad platform as the truth: reserve the
// amount against the ceiling, create every object (campaigns paused), activate, mark the launch
// published. Each platform step is recorded before (intent) and after (result) in publish_steps.
// A platform failure rolls back (recording what it deleted; deleted objects are forgotten, never
// reused); a dependency failure (database down) leaves the publish to the recovery job
// (publish-recovery.ts), which resumes it from what the platform holds or finishes its rollback.

import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { OwnTransactions, ServiceContext } from '../catalogue/define.js';
import type { Principal } from '../auth/principal.js';
import { inTransaction } from '../db/connection.js';
import { ServiceError } from '../errors.js';
import { accountScope } from '../platforms/live-read.js';
import type { BrandAdAccount } from '../platforms/registry.js';
import type { ObjectRef, ObjectSpec, PlatformAdapter } from '../platforms/port.js';
import { cancelJob, scheduleJob } from '../jobs/queue/schedule.js';
import { failedDependency } from '../pipeline/faults.js';
import { ceilingOf, commitmentAmount, commitmentOwner, releaseSpend, reserveSpend, reserving, type CeilingView } from './ceiling.js';
import type { Counted } from '../money/convert.js';
import {
  claimForPublishing,
  commitReserved,
  commitmentsOf,
  finishStep,
  forgetPlatformIds,
  insertCommitments,
  markPublishFailed,
  markPublished,
  markRollbackStarted,
  publishRecordOf,
  recordPlatformIds,
  recordStepIntent,
  renewPublishing,
  settleCommitment,
  takeOverPublishing,
  type LaunchRow,
  type NodeRow,
  type PublishAction,
} from './store.js';
import { budgetOf, childrenOf, countsOf } from './tree.js';
import { creativesOnAccount, type AdCreative } from './creative-uploads.js';
import type { CreativeRow } from '../creatives/store.js';
import { IDEMPOTENCY_LEASE_MS } from '../pipeline/idempotency.js';

/** What publishing uses of its handler's context: it runs outside a transaction and opens its own. */
export type PublishContext = ServiceContext<'platforms' | 'metrics' | 'activity' | 'events' | 'progress'> & OwnTransactions;

/** The job kind that carries an interrupted publish to its end (publish-recovery.ts); its key is the launch id. */
export const RECOVERY_JOB = 'finish-publish';
/** How long a publish may go without renewing its claim before it counts as interrupted and the recovery job takes it over. */
export const PUBLISH_LEASE_MS = IDEMPOTENCY_LEASE_MS;

type Level = 'campaign' | 'adset' | 'ad';
const LEVELS: Level[] = ['campaign', 'adset', 'ad'];
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

/** Who asked for the publish, as the recovery job needs it to carry the publish on in their name. */
export type PublishActor = Omit<Principal, 'scopes' | 'brandIds'>;

/** What a publish attempt stores on its launch so another process can carry it on (launches.publish_plan). */
export interface StoredPlan {
  actor: PublishActor;
  campaignAccounts: Record<string, string>;
  campaignAmounts: Record<string, number>;
  counted: Counted;
}

/** One runner's hold on a publishing launch: renewed on a timer; lost once another runner took it over. */
class Claim {
  private timer: NodeJS.Timeout;
  private lost = false;

  constructor(
    private readonly knex: Knex,
    private readonly launchId: number,
    readonly owner: string,
    private readonly now: () => number,
  ) {
    this.timer = setInterval(() => void this.renew(knex).catch(() => {}), Math.max(200, Math.floor(PUBLISH_LEASE_MS / 3)));
    this.timer.unref();
  }

  /** Renews the claim (through `db`, e.g. a step's transaction); throws once it was taken over. */
  async renew(db: Knex | Knex.Transaction): Promise<void> {
    if ((await renewPublishing(db, this.launchId, this.owner, this.now())) !== 1) this.lost = true;
    this.check();
  }

  /** Throws when another runner holds the publish now: this one must not act on the platform again. */
  check(): void {
    if (this.lost) throw new ServiceError('conflict', `Launch ${this.launchId} is being published by another runner; follow it with GET on the launch.`);
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

/** Recorded objects the platform no longer holds (deleted there): the publish cannot use them and rolls back. */
class RecordedObjectsGone extends Error {
  constructor(readonly nodeIds: string[]) {
    super(`${nodeIds.length} objects the publish recorded are no longer on the ad platform (deleted there)`);
    this.name = 'RecordedObjectsGone';
  }
}

const newOwner = () => `pub_${crypto.randomBytes(9).toString('hex')}`;

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
  // Unset ones are left out, not sent as null.
  return { ...rest, ...Object.fromEntries(Object.entries(speaker).filter(([, v]) => v !== null && v !== undefined)) };
}

/**
 * What a node's settings take from the tree around it: a campaign the countries its ad sets target
 * (Meta special_ad_category_country), an ad its ad set's lead form (Meta lead_gen_form_id).
 */
function fromTree(node: NodeRow, byId: Map<string, NodeRow>, kids: Map<string | null, NodeRow[]>): Record<string, unknown> {
  if (node.nodeType === 'campaign') {
    const countries = (kids.get(node.id) ?? []).flatMap((s) => (Array.isArray(s.properties.targeting?.countries) ? s.properties.targeting.countries : []));
    return countries.length ? { adSetCountries: [...new Set(countries)].sort() } : {};
  }
  if (node.nodeType !== 'ad' || !node.parentId) return {};
  const leadFormId = byId.get(node.parentId)?.properties.promotedObject?.leadFormId;
  return leadFormId ? { leadFormId } : {};
}

function specOf(
  node: NodeRow,
  parentPlatformId: string | null,
  account: BrandAdAccount,
  objective: string | undefined,
  creatives: Map<number, AdCreative> | null,
  attempt: number,
  mayExist: boolean,
  tree: Record<string, unknown> = {},
): ObjectSpec {
  const p = node.properties;
  const status = node.nodeType === 'campaign' ? 'PAUSED' : node.nodeType === 'ad' ? (p.status ?? 'ACTIVE') : 'ACTIVE';
  return {
    level: node.nodeType,
    marker: node.id,
    attempt,
    mayExist,
    name: p.name ?? node.id,
    parentId: parentPlatformId,
    status,
    objective,
    budget: node.nodeType === 'ad' ? null : budgetOf(p),
    settings: { ...settingsOf(node, account), ...tree },
    ...(node.nodeType === 'ad' ? { creative: typeof p.creativeId === 'number' ? (creatives?.get(p.creativeId) ?? null) : null } : {}),
  };
}

/** The stored form of a plan and its caller (launches.publish_plan). */
function storedPlanOf(principal: Principal, plan: PublishPlan): StoredPlan {
  const { scopes: _s, brandIds: _b, ...actor } = principal;
  return {
    actor,
    campaignAccounts: Object.fromEntries(plan.campaignAccounts),
    campaignAmounts: Object.fromEntries(plan.campaignAmounts),
    counted: plan.counted,
  };
}

/** Helpers over the plan's tree: each node's campaign, ad account and objective. */
function treeOf(plan: PublishPlan) {
  const byId = new Map(plan.nodes.map((n) => [n.id, n]));
  const campaignOf = (n: NodeRow): NodeRow => {
    let c = n;
    while (c.parentId) c = byId.get(c.parentId)!;
    return c;
  };
  return {
    byId,
    accountOf: (n: NodeRow): BrandAdAccount => plan.accounts.get(plan.campaignAccounts.get(campaignOf(n).id)!)!,
    objectiveOf: (n: NodeRow): string | undefined => campaignOf(n).properties.objective,
  };
}

/** The nodes of `level`, grouped by ad account. */
function byAccount(plan: PublishPlan, level: Level, accountOf: (n: NodeRow) => BrandAdAccount): Array<{ account: BrandAdAccount; nodes: NodeRow[] }> {
  const groups = new Map<string, { account: BrandAdAccount; nodes: NodeRow[] }>();
  for (const n of plan.nodes.filter((x) => x.nodeType === level)) {
    const account = accountOf(n);
    const g = groups.get(account.accountId) ?? { account, nodes: [] };
    g.nodes.push(n);
    groups.set(account.accountId, g);
  }
  return [...groups.values()];
}

/** Runs the publish of a request; on a platform failure everything created is removed and the reservation released. Returns the ceiling after it. */
export async function publishLaunch(ctx: PublishContext, plan: PublishPlan, resume: boolean): Promise<CeilingView> {
  const knex = ctx.db;
  const { launch } = plan;
  const now = ctx.now();
  const owner = newOwner();

  if (!resume) {
    await reserving(
      () =>
        inTransaction(knex, async (trx) => {
          const moved = await claimForPublishing(trx, launch.id, now, storedPlanOf(ctx.principal, plan), owner);
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
          // Whatever stops this request (a crash, an outage), the recovery job looks at the launch once its claim runs out.
          await scheduleJob(trx, { kind: RECOVERY_JOB, key: String(launch.id), runAt: now + PUBLISH_LEASE_MS, now });
        }),
      { ctx, brandId: launch.brandId, operation: 'launch-campaign' },
    );
  } else {
    // Take over a crashed publish only if nobody else did since we read the launch.
    const taken = await takeOverPublishing(knex, launch.id, launch.updatedAt, owner, now);
    if (taken !== 1)
      throw new ServiceError('conflict', `Launch ${launch.id} is being published by another request; wait for it to finish.`, { status: 'publishing' });
    await recordLaunchActivity(ctx, launch, 'launch.publish_resumed');
  }
  const record = await publishRecordOf(knex, launch.id);
  const attempt = record?.attempt ?? 0;
  if (record?.rollbackStartedAt) {
    // A resumed publish that had started rolling back only goes backward.
    await finishRollback(ctx, plan, owner, attempt, new Error('the interrupted publish was being rolled back'));
    throw new ServiceError(
      'conflict',
      `Launch ${launch.id} was being rolled back after a failed publish; it is now publish_failed. Publish it again with a new key.`,
      {
        status: 'publish_failed',
      },
    );
  }
  return carryOn(ctx, plan, owner, attempt, resume);
}

/**
 * Carries a claimed publish forward to `published`. A dependency failure leaves it to the recovery
 * job (the database may not even take the rollback's records); any other failure rolls it back.
 */
export async function carryOn(ctx: PublishContext, plan: PublishPlan, owner: string, attempt: number, resume: boolean): Promise<CeilingView> {
  const claim = new Claim(ctx.db, plan.launch.id, owner, ctx.now);
  try {
    return await forward(ctx, plan, claim, attempt, resume);
  } catch (err) {
    claim.stop();
    if (err instanceof ServiceError && err.code === 'conflict') throw err;
    if (failedDependency(err)) {
      ctx.log.warn(
        { requestId: ctx.requestId, launchId: plan.launch.id, err },
        'publish interrupted by a dependency failure; the recovery job resumes it once its claim runs out',
      );
      throw err;
    }
    try {
      await finishRollback(ctx, plan, owner, attempt, err);
    } catch (rollbackErr) {
      ctx.log.error(
        { requestId: ctx.requestId, launchId: plan.launch.id, err: rollbackErr },
        'rollback of a failed publish could not finish; the recovery job carries it on',
      );
    }
    throw err;
  } finally {
    claim.stop();
    for (const account of plan.accounts.values()) await ctx.metrics.invalidate(accountScope(account)).catch(() => {});
  }
}

async function step<T>(
  ctx: PublishContext,
  plan: PublishPlan,
  attempt: number,
  s: { action: PublishAction; level: Level | null; account: BrandAdAccount; nodes: NodeRow[]; platformIds?: string[] },
  act: () => Promise<T>,
  recordResult: (trx: Knex.Transaction, result: T) => Promise<string[] | null>,
): Promise<T> {
  const knex = ctx.db;
  const id = await recordStepIntent(
    knex,
    plan.launch.id,
    { attempt, action: s.action, level: s.level, accountId: s.account.accountId, nodeIds: s.nodes.map((n) => n.id), platformIds: s.platformIds ?? null },
    ctx.now(),
  );
  let result: T;
  try {
    result = await act();
  } catch (err) {
    await finishStep(knex, id, 'failed', null, (err as Error)?.message ?? String(err), ctx.now()).catch(() => {});
    throw err;
  }
  await inTransaction(knex, async (trx) => {
    const ids = await recordResult(trx, result);
    await finishStep(trx, id, 'done', ids, null, ctx.now());
  });
  return result;
}

/** The forward path: find what exists (on a resume), create the rest level by level, activate, record the publish. */
async function forward(ctx: PublishContext, plan: PublishPlan, claim: Claim, attempt: number, resume: boolean): Promise<CeilingView> {
  const knex = ctx.db;
  const { launch } = plan;
  const { byId, accountOf, objectiveOf } = treeOf(plan);
  const kids = childrenOf(plan.nodes);

  // Progress counts the objects created on the platform, then one step to activate and record. The last
  // notification comes before that step, not with the answer, so it is never overtaken by it.
  const total = plan.nodes.filter((n) => !n.platformId).length + 1;
  let created = 0;
  ctx.progress({ progress: 0, total, message: `Creating ${total - 1} objects on the ad platform` });
  for (const level of LEVELS) {
    for (const { account, nodes } of byAccount(plan, level, accountOf)) {
      const adapter = ctx.platforms.adapterFor(account.platform);
      if (resume) await adoptExisting(ctx, plan, adapter, account, level, nodes, () => claim.renew(knex));
      const toCreate = nodes.filter((n) => !n.platformId);
      // The ads' creatives go to the account first, once per creative and account.
      const creatives = level === 'ad' && toCreate.length ? await creativesOnAccount(ctx, account, toCreate, plan.creatives, plan.creativesDir) : null;
      for (let i = 0; i < toCreate.length; i += CHUNK) {
        const chunk = toCreate.slice(i, i + CHUNK);
        const specs = chunk.map((n) =>
          specOf(n, n.parentId ? byId.get(n.parentId)!.platformId : null, account, objectiveOf(n), creatives, attempt, resume, fromTree(n, byId, kids)),
        );
        // Renewed (not just checked) before each platform call: the claim cannot run out while a call is in flight
        // unless that one call outlasts the whole lease, so a runner taking over never overlaps with this one.
        await claim.renew(knex);
        await step(
          ctx,
          plan,
          attempt,
          { action: 'create', level, account, nodes: chunk },
          () => adapter.createObjects(account, specs),
          async (trx, refs) => {
            const ids = refs.map((r) => r.id);
            await recordPlatformIds(trx, chunk, ids, ctx.now());
            await claim.renew(trx);
            return ids;
          },
        );
        created += chunk.length;
        ctx.progress({ progress: created, total, message: `Created ${created} of ${total - 1} objects` });
      }
    }
  }
  ctx.progress({ progress: total, total, message: 'Activating the campaigns and recording the publish' });
  for (const [accountId, account] of plan.accounts) {
    const campaigns = (kids.get(null) ?? []).filter((c) => plan.campaignAccounts.get(c.id) === accountId && (c.properties.status ?? 'ACTIVE') === 'ACTIVE');
    if (!campaigns.length) continue;
    const refs = campaigns.map((c): ObjectRef => ({ level: 'campaign', id: c.platformId! }));
    await claim.renew(knex);
    await step(
      ctx,
      plan,
      attempt,
      { action: 'activate', level: 'campaign', account, nodes: campaigns, platformIds: refs.map((r) => r.id) },
      () => ctx.platforms.adapterFor(account.platform).setStatus(account, refs, 'ACTIVE'),
      async () => null,
    );
  }
  return inTransaction(knex, async (trx) => {
    const at = ctx.now();
    await claim.renew(trx);
    await markPublished(trx, launch.id, at);
    await commitReserved(trx, launch.id, at);
    await cancelJob(trx, RECOVERY_JOB, String(launch.id));
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
}

/** Node id → the platform id its create answered, for the nodes that have one recorded. */
const recordedIds = (nodes: NodeRow[]) => new Map(nodes.flatMap((n) => (n.platformId ? [[n.id, n.platformId] as const] : [])));

/**
 * On a resume, asks the platform (one findCreated per level and account, which the adapter answers
 * with a few list calls) what already exists: unrecorded objects are recorded; a recorded object
 * the platform no longer holds means the publish cannot go on and must roll back.
 */
async function adoptExisting(
  ctx: PublishContext,
  plan: PublishPlan,
  adapter: PlatformAdapter,
  account: BrandAdAccount,
  level: Level,
  nodes: NodeRow[],
  renew: () => Promise<void>,
): Promise<void> {
  const found = await adapter.findCreated(
    account,
    level,
    nodes.map((n) => n.id),
    recordedIds(nodes),
  );
  const gone = nodes.filter((n) => n.platformId && found.get(n.id)?.id !== n.platformId);
  if (gone.length) throw new RecordedObjectsGone(gone.map((n) => n.id));
  const known = nodes.filter((n) => !n.platformId && found.has(n.id));
  if (!known.length) return;
  await renew();
  await inTransaction(ctx.db, (trx) =>
    recordPlatformIds(
      trx,
      known,
      known.map((n) => found.get(n.id)!.id),
      ctx.now(),
    ),
  );
  ctx.progress({ progress: known.length, total: plan.nodes.length + 1, message: `Found ${known.length} ${level} objects already created` });
}

/**
 * Rolls the publish back to `publish_failed`: marks the launch as rolling back (it only goes
 * backward from then on), removes every object of it the platform holds (recorded, or found by its
 * label), children first, recording each deletion and forgetting the deleted ids, then releases
 * the reservation. Throws when the platform or the database fails on the way; the recovery job
 * then carries it on from where it stopped.
 */
export async function finishRollback(ctx: PublishContext, plan: PublishPlan, owner: string, attempt: number, cause: unknown): Promise<void> {
  const knex = ctx.db;
  const { launch } = plan;
  await markRollbackStarted(knex, launch.id, ctx.now());
  const { accountOf } = treeOf(plan);
  for (const level of [...LEVELS].reverse()) {
    for (const { account, nodes } of byAccount(plan, level, accountOf)) {
      const adapter = ctx.platforms.adapterFor(account.platform);
      // The platform is the truth: what it holds of ours is deleted; what it no longer holds is only forgotten.
      const found = await adapter.findCreated(
        account,
        level,
        nodes.map((n) => n.id),
        recordedIds(nodes),
      );
      const live = nodes.filter((n) => found.has(n.id));
      const stale = nodes.filter((n) => n.platformId && !found.has(n.id));
      if (stale.length)
        await forgetPlatformIds(
          knex,
          launch.id,
          stale.map((n) => n.id),
          ctx.now(),
        );
      for (const n of stale) n.platformId = null;
      if (!live.length) continue;
      const ids = live.map((n) => found.get(n.id)!.id);
      if ((await renewPublishing(knex, launch.id, owner, ctx.now())) !== 1)
        throw new ServiceError('conflict', `Launch ${launch.id} is being rolled back by another runner.`);
      await step(
        ctx,
        plan,
        attempt,
        { action: 'delete', level, account, nodes: live, platformIds: ids },
        () =>
          adapter.deleteObjects(
            account,
            ids.map((id) => ({ level, id })),
          ),
        async (trx) => {
          await forgetPlatformIds(
            trx,
            launch.id,
            live.map((n) => n.id),
            ctx.now(),
          );
          return ids;
        },
      );
      for (const n of live) n.platformId = null;
    }
  }
  const reason =
    cause instanceof ServiceError || (cause as Error)?.name === 'PlatformError' || cause instanceof RecordedObjectsGone
      ? (cause as Error).message
      : 'internal error';
  const statusReason = `Publish failed: ${reason}; everything it had created on the ad platform was removed.`.slice(0, 2000);
  await inTransaction(knex, async (trx) => {
    const at = ctx.now();
    if ((await renewPublishing(trx, launch.id, owner, at)) !== 1)
      throw new ServiceError('conflict', `Launch ${launch.id} is being rolled back by another runner.`);
    for (const c of await commitmentsOf(trx, launch.id, 'reserved')) {
      await releaseSpend(trx, c);
      await settleCommitment(trx, c.id, 'released', at);
    }
    await markPublishFailed(trx, launch.id, statusReason, false, at);
    await cancelJob(trx, RECOVERY_JOB, String(launch.id));
    await ctx.activity.record(
      { brandId: launch.brandId, entityType: 'unknown', entityId: String(launch.id), entityName: launch.title, action: 'launch.rolled_back' },
      trx,
    );
    await ctx.events.emit(trx, {
      organizationId: ctx.principal.organizationId,
      brandId: launch.brandId,
      type: 'launch.publish_failed',
      data: { brandId: launch.brandId, launchId: String(launch.id), reason: statusReason, actor: ctx.principal.actorLabel.slice(0, 255) },
    });
  });
}

/** Records a launch-level entry of the publish's life (interrupted, resumed) in the activity log. */
export async function recordLaunchActivity(ctx: PublishContext, launch: LaunchRow, action: string): Promise<void> {
  await ctx.activity.record({ brandId: launch.brandId, entityType: 'unknown', entityId: String(launch.id), entityName: launch.title, action });
}
