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
import type { ObjectRef, PlatformAdapter } from '../platforms/port.js';
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
import { childrenOf, countsOf } from './tree.js';
import { creativesOnAccount } from './creative-uploads.js';
import { fromTree, specOf } from './platform-specs.js';
import { askBeforeCreating } from './ask-platform.js';
import type { CreativeRow } from '../creatives/store.js';

/** What publishing uses of its handler's context: it runs outside a transaction and opens its own. */
export type PublishContext = ServiceContext<'platforms' | 'metrics' | 'activity' | 'events' | 'progress' | 'config'> & OwnTransactions;

/** The job kind that carries an interrupted publish to its end (publish-recovery.ts); its key is the launch id. */
export const RECOVERY_JOB = 'finish-publish';
/**
 * How long a publish may go without renewing its claim before it counts as interrupted and the
 * recovery job takes it over: the job lease (JOB_LEASE_MS), like every claim of background work.
 */
export const publishLeaseMs = (ctx: Pick<PublishContext, 'config'>): number => ctx.config.jobLeaseMs;

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
  /** When the publish was first claimed: a publish carried on past its request ends by PUBLISH_DEADLINE_MS from it. */
  startedAt?: number;
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
    leaseMs: number,
  ) {
    this.timer = setInterval(() => void this.renew(knex).catch(() => {}), Math.max(200, Math.floor(leaseMs / 3)));
    this.timer.unref();
  }

  /** Renews the claim (through `db`, e.g. a step's transaction); throws once it was taken over. */
  async renew(db: Knex | Knex.Transaction): Promise<void> {
    if ((await renewPublishing(db, this.launchId, this.owner, this.now())) !== 1) this.lost = true;
    this.check();
  }

  /** Throws when another runner holds the publish now: this one must not act on the platform again. */
  check(): void {
    if (this.lost) throw new ServiceError('conflict', `Launch ${this.launchId} is being published by another runner; follow it with get-launch.`);
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

/**
 * A lookup of what the publish created that cannot be trusted: it failed, or it found fewer objects
 * than the service recorded. Nothing is concluded from it (no create, no rollback): the recovery job
 * looks again later, and the publish's deadline bounds how long.
 */
export class LookupIncomplete extends ServiceError {
  constructor(launchId: number, why: string) {
    super(
      'unavailable',
      `The ad platform's lookup of launch ${launchId}'s objects ${why}; the publish goes on by itself once the platform answers in full.`,
      { launchId: String(launchId), status: 'publishing' },
      5,
    );
    this.name = 'LookupIncomplete';
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

/** The stored form of a plan and its caller (launches.publish_plan). */
function storedPlanOf(principal: Principal, plan: PublishPlan, startedAt: number): StoredPlan {
  const { scopes: _s, brandIds: _b, ...actor } = principal;
  return {
    startedAt,
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
          const moved = await claimForPublishing(trx, launch.id, now, storedPlanOf(ctx.principal, plan, now), owner);
          if (moved !== 1) throw await publishingConflict(trx, launch.id);
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
          await scheduleJob(trx, { kind: RECOVERY_JOB, key: String(launch.id), runAt: now + publishLeaseMs(ctx), now });
        }),
      { ctx, brandId: launch.brandId, operation: 'launch-campaign' },
    );
  } else {
    // Take over a crashed publish only if nobody else did since we read the launch.
    const taken = await takeOverPublishing(knex, launch.id, launch.updatedAt, owner, now);
    if (taken !== 1) throw await publishingConflict(knex, launch.id);
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
  const claim = new Claim(ctx.db, plan.launch.id, owner, ctx.now, publishLeaseMs(ctx));
  try {
    return await forward(ctx, plan, claim, attempt, resume);
  } catch (err) {
    claim.stop();
    if (err instanceof ServiceError && err.code === 'conflict') throw err;
    if (err instanceof LookupIncomplete) {
      ctx.log.warn({ requestId: ctx.requestId, launchId: plan.launch.id, err }, 'publish lookup came back short; the recovery job looks again');
      throw err;
    }
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
      const levelSpecs = toCreate.map((n) =>
        specOf(n, n.parentId ? byId.get(n.parentId)!.platformId : null, account, objectiveOf(n), creatives, attempt, resume, fromTree(n, byId, kids)),
      );
      // The platform validates the whole level before any of it is created (Meta validate_only); the campaign
      // create, the first thing a publish sends, is its own check (and the preview asked about it).
      if (level !== 'campaign' && toCreate.length && adapter.validateCreates) {
        await claim.renew(knex);
        await askBeforeCreating(adapter, account, level, toCreate, levelSpecs);
      }
      for (let i = 0; i < toCreate.length; i += CHUNK) {
        const chunk = toCreate.slice(i, i + CHUNK);
        const specs = levelSpecs.slice(i, i + CHUNK);
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
    if (ctx.platforms.adapterFor(account.platform).finishPublish) {
      await finishOnPlatform(ctx, plan, attempt, account, () => claim.renew(knex));
      continue;
    }
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

/**
 * The status the launch gives a node once published: a campaign's and an ad's own (default ACTIVE), an
 * ad set's ACTIVE (it has none of its own).
 */
const launchStatusOf = (n: NodeRow): 'ACTIVE' | 'PAUSED' => (n.nodeType === 'adset' ? 'ACTIVE' : (n.properties.status ?? 'ACTIVE'));

/**
 * The activate step of an account whose adapter has finishPublish (TikTok): every object of the
 * account's part of the launch goes to the platform with the status the launch gives it.
 */
async function finishOnPlatform(ctx: PublishContext, plan: PublishPlan, attempt: number, account: BrandAdAccount, renew: () => Promise<void>): Promise<void> {
  const { accountOf } = treeOf(plan);
  const nodes = plan.nodes.filter((n) => n.platformId && accountOf(n).accountId === account.accountId);
  if (!nodes.length) return;
  const objects = nodes.map((n) => ({ ref: { level: n.nodeType, id: n.platformId! } as ObjectRef, status: launchStatusOf(n) }));
  await renew();
  await step(
    ctx,
    plan,
    attempt,
    { action: 'activate', level: null, account, nodes, platformIds: objects.map((o) => o.ref.id) },
    () => ctx.platforms.adapterFor(account.platform).finishPublish!(account, objects),
    async () => null,
  );
}

/** Node id → the platform id its create answered, for the nodes that have one recorded. */
const recordedIds = (nodes: NodeRow[]) => new Map(nodes.flatMap((n) => (n.platformId ? [[n.id, n.platformId] as const] : [])));

/**
 * Looks up what the platform holds of `nodes` (one findCreated per level and account, which the
 * adapter answers with a few list calls): every object found, by node id. The records come first:
 * a recorded object the lookup missed is read by its id; one the platform says is gone throws
 * RecordedObjectsGone, and otherwise the lookup cannot be trusted (LookupIncomplete: look again
 * later), since it may have missed the objects whose create answers were lost as well. A lookup
 * that fails is LookupIncomplete too.
 */
async function lookUp(ctx: PublishContext, adapter: PlatformAdapter, account: BrandAdAccount, level: Level, nodes: NodeRow[]): Promise<Map<string, ObjectRef>> {
  const launchId = nodes[0]?.launchId;
  let found: Map<string, ObjectRef>;
  try {
    found = await adapter.findCreated(
      account,
      level,
      nodes.map((n) => n.id),
      recordedIds(nodes),
    );
  } catch (err) {
    if (failedDependency(err)) throw err;
    throw new LookupIncomplete(launchId, `failed (${(err as Error)?.message ?? String(err)})`);
  }
  const missed = nodes.filter((n) => n.platformId && found.get(n.id)?.id !== n.platformId);
  if (!missed.length) return found;
  const said = await adapter
    .confirmRecorded(
      account,
      level,
      missed.map((n) => n.platformId!),
    )
    .catch((err: unknown) => {
      if (failedDependency(err)) throw err;
      return new Map<string, 'held' | 'gone'>();
    });
  const gone = missed.filter((n) => said.get(n.platformId!) === 'gone');
  if (gone.length) throw new RecordedObjectsGone(gone.map((n) => n.id));
  const recorded = nodes.filter((n) => n.platformId).length;
  throw new LookupIncomplete(launchId, `found ${recorded - missed.length} of the ${recorded} ${level} objects recorded on ${account.accountId}`);
}

/**
 * On a resume, learns what already exists: unrecorded objects the lookup found are recorded; a
 * recorded object the platform no longer holds means the publish cannot go on and must roll back.
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
  const found = await lookUp(ctx, adapter, account, level, nodes);
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
 * The platform objects a rollback removes for `nodes`: every recorded id (unless the platform says it
 * is gone, then it is only forgotten) and every object the lookup found, by node.
 */
async function rollbackTargets(
  adapter: PlatformAdapter,
  account: BrandAdAccount,
  level: Level,
  nodes: NodeRow[],
): Promise<{ targets: Map<string, string[]>; gone: NodeRow[]; short: boolean }> {
  const found = await adapter.findCreated(
    account,
    level,
    nodes.map((n) => n.id),
    recordedIds(nodes),
  );
  const missed = nodes.filter((n) => n.platformId && found.get(n.id)?.id !== n.platformId);
  const said = missed.length
    ? await adapter.confirmRecorded(
        account,
        level,
        missed.map((n) => n.platformId!),
      )
    : new Map<string, 'held' | 'gone'>();
  const targets = new Map<string, string[]>();
  const gone: NodeRow[] = [];
  // A lookup that missed objects the platform still holds may have missed unrecorded ones too.
  const short = missed.some((n) => said.get(n.platformId!) !== 'gone');
  for (const n of nodes) {
    const ids = new Set<string>();
    const f = found.get(n.id)?.id;
    if (f) ids.add(f);
    if (n.platformId && said.get(n.platformId) !== 'gone') ids.add(n.platformId);
    if (ids.size) targets.set(n.id, [...ids]);
    else if (n.platformId) gone.push(n);
  }
  return { targets, gone, short };
}

/**
 * Rolls the publish back to `publish_failed`: marks the launch as rolling back (it only goes
 * backward from then on), removes every object of it the platform holds (every recorded id, and
 * what the lookup finds), children first, recording each deletion and forgetting the deleted ids,
 * then releases the reservation. Throws when the platform or the database fails on the way, or when
 * a lookup comes back short (LookupIncomplete, before anything of that level is deleted); the
 * recovery job then carries it on from where it stopped. The `final` rollback of a publish past its
 * deadline deletes what it knows of even after a short lookup, and ends.
 */
export async function finishRollback(
  ctx: PublishContext,
  plan: PublishPlan,
  owner: string,
  attempt: number,
  cause: unknown,
  options: { final?: boolean } = {},
): Promise<void> {
  const knex = ctx.db;
  const { launch } = plan;
  await markRollbackStarted(knex, launch.id, ctx.now());
  const { byId, accountOf } = treeOf(plan);
  for (const level of [...LEVELS].reverse()) {
    for (const { account, nodes } of byAccount(plan, level, accountOf)) {
      const adapter = ctx.platforms.adapterFor(account.platform);
      const { targets, gone, short } = await rollbackTargets(adapter, account, level, nodes);
      if (short && !options.final) throw new LookupIncomplete(launch.id, `missed ${level} objects recorded on ${account.accountId} during the rollback`);
      // Children of the launch's own parents are the launch's: one whose create answer was lost is removed too.
      const parents =
        level === 'campaign' ? [] : [...new Set(nodes.flatMap((n) => (n.parentId ? [byId.get(n.parentId)?.platformId ?? ''] : [])))].filter(Boolean);
      const known = new Set([...targets.values()].flat());
      const strays = parents.length ? (await adapter.childrenOf(account, level as 'adset' | 'ad', parents)).filter((id) => !known.has(id)) : [];
      if (gone.length)
        await forgetPlatformIds(
          knex,
          launch.id,
          gone.map((n) => n.id),
          ctx.now(),
        );
      for (const n of gone) n.platformId = null;
      if (!targets.size && !strays.length) continue;
      const live = nodes.filter((n) => targets.has(n.id));
      const ids = [...known, ...strays];
      if ((await renewPublishing(knex, launch.id, owner, ctx.now())) !== 1)
        throw new ServiceError('conflict', `Launch ${launch.id} is being rolled back by another runner.`, { status: 'rolling_back' });
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
  const statusReason = `Publish failed: ${reasonOf(cause)}; everything it had created on the ad platform was removed.`.slice(0, 2000);
  await endFailed(ctx, plan, owner, { statusReason, keepPlatformIds: false, settle: 'released', activity: 'launch.rolled_back' });
}

/** What a failure says in a launch's statusReason: its own message when it is one of ours or the platform's. */
function reasonOf(cause: unknown): string {
  return cause instanceof ServiceError || (cause as Error)?.name === 'PlatformError' || cause instanceof RecordedObjectsGone
    ? (cause as Error).message
    : 'internal error';
}

/** Ends the publish `publish_failed` in one transaction: the reservation settled, the job cancelled, an activity entry and a `launch.publish_failed` event. */
async function endFailed(
  ctx: PublishContext,
  plan: PublishPlan,
  owner: string,
  end: { statusReason: string; keepPlatformIds: boolean; settle: 'released' | 'committed'; activity: string },
): Promise<void> {
  const { launch } = plan;
  await inTransaction(ctx.db, async (trx) => {
    const at = ctx.now();
    if ((await renewPublishing(trx, launch.id, owner, at)) !== 1)
      throw new ServiceError('conflict', `Launch ${launch.id} is being rolled back by another runner.`, { status: 'rolling_back' });
    for (const c of await commitmentsOf(trx, launch.id, 'reserved')) {
      if (end.settle === 'released') {
        await releaseSpend(trx, c);
        await settleCommitment(trx, c.id, 'released', at);
      } else await settleCommitment(trx, c.id, 'committed', at);
    }
    await markPublishFailed(trx, launch.id, end.statusReason, end.keepPlatformIds, at);
    await cancelJob(trx, RECOVERY_JOB, String(launch.id));
    await ctx.activity.record(
      {
        brandId: launch.brandId,
        entityType: 'unknown',
        entityId: String(launch.id),
        entityName: launch.title,
        action: end.activity,
      },
      trx,
    );
    await ctx.events.emit(trx, {
      organizationId: ctx.principal.organizationId,
      brandId: launch.brandId,
      type: 'launch.publish_failed',
      data: { brandId: launch.brandId, launchId: String(launch.id), reason: end.statusReason, actor: ctx.principal.actorLabel.slice(0, 255) },
    });
  });
}

/**
 * Ends a publish past its deadline whose rollback could not finish: every object it still records is
 * paused (one status change per object, so one refusal does not keep the others live), and the launch
 * ends `publish_failed` keeping those ids, its statusReason naming what is left on which ad account
 * and whether it is paused. An object the platform says it does not hold counts as stopped only once
 * confirmRecorded says it is gone (a lookup that came back short, such as Meta's error 100 subcode 33,
 * proves nothing). The reservation is released when everything left is paused or gone (nothing can
 * spend), else committed: what may be spending stays counted against the ceiling.
 */
export async function abandonPublish(ctx: PublishContext, plan: PublishPlan, owner: string, cause: unknown): Promise<void> {
  const { accountOf } = treeOf(plan);
  const left: string[] = [];
  let allPaused = true;
  // Campaigns first: a paused campaign stops everything under it even where a child cannot be paused.
  for (const level of LEVELS) {
    for (const { account, nodes } of byAccount(plan, level, accountOf)) {
      const recorded = nodes.filter((n) => n.platformId);
      if (!recorded.length) continue;
      const refs = recorded.map((n): ObjectRef => ({ level, id: n.platformId! }));
      const adapter = ctx.platforms.adapterFor(account.platform);
      const outcomes = await adapter.setStatusEach(account, refs, 'PAUSED').catch((err: unknown) => refs.map(() => err as Error));
      const unknown = refs.filter((_r, i) => (outcomes[i] as { kind?: string } | null)?.kind === 'not_found').map((r) => r.id);
      const said = unknown.length
        ? await adapter.confirmRecorded(account, level, unknown).catch(() => new Map<string, 'held' | 'gone'>())
        : new Map<string, 'held' | 'gone'>();
      for (const [i, n] of recorded.entries()) {
        const failed = outcomes[i];
        const gone = failed && said.get(n.platformId!) === 'gone';
        if (failed && !gone) allPaused = false;
        left.push(`${level} ${n.platformId} on ${account.accountId} (${!failed ? 'paused' : gone ? 'gone' : `not confirmed paused: ${failed.message}`})`);
      }
    }
  }
  const what = left.length ? `Left on the ad platform: ${left.join('; ')}.` : 'Nothing it created is recorded on the ad platform.';
  const statusReason =
    `Publish failed: ${reasonOf(cause)}; it could not be rolled back before its deadline (PUBLISH_DEADLINE_MS, PUBLISH_MAX_RETRIES). ${what}`.slice(0, 2000);
  ctx.log.error({ launchId: plan.launch.id, left: left.length, allPaused }, 'publish abandoned past its deadline');
  await endFailed(ctx, plan, owner, {
    statusReason,
    keepPlatformIds: left.length > 0,
    settle: allPaused ? 'released' : 'committed',
    activity: 'launch.publish_abandoned',
  });
}

/** The 409 for a launch another runner is publishing, or rolling back, or that is already published. */
export async function publishingConflict(db: Knex | Knex.Transaction, launchId: number): Promise<ServiceError> {
  const record = await publishRecordOf(db, launchId);
  const status = record?.launch.status ?? 'unknown';
  if (status === 'publishing' && record?.rollbackStartedAt !== null && record?.rollbackStartedAt !== undefined)
    return new ServiceError(
      'conflict',
      `Launch ${launchId} is rolling back a failed publish and ends publish_failed by itself; follow it with get-launch, then publish it again (launch-campaign) with a new Idempotency-Key.`,
      { status: 'rolling_back' },
    );
  if (status === 'publishing')
    return new ServiceError('conflict', `Launch ${launchId} is being published by another request; wait for it to finish.`, { status });
  return new ServiceError('conflict', `Launch ${launchId} is already ${status}.`, { status });
}

/** Records a launch-level entry of the publish's life (interrupted, resumed) in the activity log. */
export async function recordLaunchActivity(ctx: PublishContext, launch: LaunchRow, action: string): Promise<void> {
  await ctx.activity.record({ brandId: launch.brandId, entityType: 'unknown', entityId: String(launch.id), entityName: launch.title, action });
}
