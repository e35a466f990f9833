// Publishing: launch-campaign (validate and preview, or publish with confirm: true) and
// edit-live-campaign (change the budget of a live campaign or ad set). Both spend money: scope
// publish, an Idempotency-Key, and the calling key's ceiling. The steps of a publish are publish.ts.

import { defineOperation, type OperationDefinition, type ServiceContext } from '../catalogue/define.js';
import { ServiceError, notFound, validationFailed } from '../errors.js';
import { inTransaction } from '../db/connection.js';
import { ceilingOf, commitmentAmount, commitmentOwner, releaseSpend, requireCeiling, reserveSpend, reserving, type CeilingView } from './ceiling.js';
import { creativesFor, validationContextFor } from './context.js';
import { publishLaunch } from './publish.js';
import { RULES } from './rules.js';
import { commitmentsOf, findNode, insertCommitments, loadLaunch, loadNodes, settleCommitment, updateNodeProperties, type LaunchRow, type NodeRow } from './store.js';
import { budgetOf, childrenOf, countsOf } from './tree.js';
import { campaignAmounts, validateLaunch } from './validate.js';
import { countPerAccount, formatMinor, toUsdCents, type Counted } from '../money/convert.js';
import { IDEMPOTENCY_LEASE_MS } from '../pipeline/idempotency.js';
import { accountScope } from '../platforms/live-read.js';
import type { BrandAdAccount } from '../platforms/registry.js';

function planOf(nodes: NodeRow[], campaignAccounts: Map<string, string | null>) {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const campaignOf = (n: NodeRow): NodeRow => (n.parentId ? campaignOf(byId.get(n.parentId)!) : n);
  const item = (n: NodeRow) => {
    const c = campaignOf(n);
    return {
      nodeId: n.id,
      parentId: n.parentId,
      name: n.properties.name ?? null,
      accountId: campaignAccounts.get(c.id) ?? null,
      objective: c.properties.objective,
      status: n.nodeType === 'adset' ? 'ACTIVE' : n.properties.status ?? 'ACTIVE',
      budget: n.nodeType === 'ad' ? null : budgetOf(n.properties),
      platformId: n.platformId,
    };
  };
  return {
    campaigns: nodes.filter((n) => n.nodeType === 'campaign').map(item),
    adSets: nodes.filter((n) => n.nodeType === 'adset').map(item),
    ads: nodes.filter((n) => n.nodeType === 'ad').map(item),
  };
}

/**
 * What publishing the launch counts against the ceiling: each ad account's total in its own
 * currency, converted to US cents and rounded up once per account (503 when a rate is missing).
 */
async function countLaunch(ctx: ServiceContext<'platforms' | 'config'>, brandId: number, nodes: NodeRow[], campaignAccounts: Map<string, string | null>): Promise<Counted> {
  const parts = [];
  for (const c of campaignAmounts(nodes, campaignAccounts)) {
    const account = await ctx.platforms.account(ctx.db, brandId, c.accountId);
    parts.push({ accountId: c.accountId, currency: account.currency, amountMinorUnits: c.amountMinorUnits });
  }
  return countPerAccount(parts, ctx.config.fxRates);
}

/** What a published launch counted when it was published (its commitments), or null for commitments that predate currencies. */
async function countedAtPublish(ctx: ServiceContext, launchId: number): Promise<Counted | null> {
  const rows = await commitmentsOf(ctx.db, launchId, 'committed', 'publish');
  if (!rows.length || rows.some((r) => r.accountId === null)) return null;
  const accounts = rows.map((r) => ({ accountId: r.accountId!, currency: r.currency!, amountMinorUnits: Number(r.amountMinorUnits), countedUsdCents: r.countedUsdCents }));
  return { accounts, totalUsdCents: accounts.reduce((sum, a) => sum + a.countedUsdCents, 0) };
}

async function publishView(ctx: ServiceContext<'platforms' | 'config'>, l: LaunchRow, nodes: NodeRow[], campaignAccounts: Map<string, string | null>, warnings: Array<{ field: string; message: string }>, confirmed: boolean, ceiling?: CeilingView) {
  const counted = (l.status === 'published' ? await countedAtPublish(ctx, l.id) : null) ?? (await countLaunch(ctx, l.brandId, nodes, campaignAccounts));
  return {
    launchId: String(l.id),
    confirmed,
    valid: true,
    status: l.status,
    counts: countsOf(nodes),
    plan: planOf(nodes, campaignAccounts),
    budget: {
      countedMinorUnits: counted.totalUsdCents,
      countedUsdCents: counted.totalUsdCents,
      accounts: counted.accounts,
      ceiling: ceiling ?? (await ceilingOf(ctx.db, ctx.principal)),
    },
    warnings: warnings.map((w) => ({ field: w.field, message: w.message })),
    publishedAt: l.publishedAt === null ? null : new Date(l.publishedAt).toISOString(),
  };
}

const launchCampaign = defineOperation({
  name: 'launch-campaign',
  method: 'POST',
  path: '/brands/{brandId}/launches/{launchId}/publish',
  scope: 'publish',
  errors: ['conflict', 'capability_unsupported'],
  idempotency: 'required',
  input: 'launch-campaign#/$defs/input',
  output: 'launch-campaign#/$defs/output',
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
  tag: 'launches',
  toolset: 'launch',
  transactional: false,
  summary: 'Validate and preview a launch, or publish it to the ad platform with confirm: true.',
  description:
    'Without confirm: true this only validates and previews (every object to be created, counts, the amount that would count against ' +
    "the key's publish ceiling); nothing changes and nothing counts. With confirm: true the amount (each campaign's budget, or its ad " +
    "sets' budgets) is reserved against the ceiling, every object is created on the ad platform and the launch becomes published. " +
    "Budgets are in the minor units of each ad account's currency; the ceiling is in US dollars: budget.accounts shows each account's " +
    'amount and the US cents it counts (its total at the FX_RATES rate, rounded up to the next cent), budget.countedUsdCents the sum. ' +
    'An account currency without a rate answers 503 unavailable (preview included) and publishes nothing. ' +
    'Validation failures answer 400 "Launch validation failed: <n> issues." with one detail per issue. A failed publish removes what ' +
    'it created and releases the reservation. Retry with the same Idempotency-Key after a timeout.',
  uses: ['platforms', 'metrics', 'activity', 'events', 'progress', 'config', 'idempotency', 'trackers'],
  async handler(ctx, input) {
    requireCeiling(ctx.principal);
    let l = await loadLaunch(ctx.db, ctx.brand.id, input.launchId);
    let nodes = await loadNodes(ctx.db, l.id);
    const stale = l.updatedAt < ctx.now() - IDEMPOTENCY_LEASE_MS;
    const resume = input.confirm && l.status === 'publishing' && (ctx.idempotency?.resumed === true || stale);
    if (input.confirm && l.status === 'published') {
      if (!ctx.idempotency?.resumed) throw new ServiceError('conflict', `Launch ${l.id} is already published.`, { status: l.status });
    } else if (input.confirm && l.status === 'publishing' && !resume) {
      throw new ServiceError('conflict', `Launch ${l.id} is being published by another request; wait for it to finish.`, { status: l.status });
    }
    const vctx = await validationContextFor(ctx, l, nodes);
    const { issues, warnings, campaignAccounts } = validateLaunch(nodes, vctx);
    if (issues.length && l.status !== 'published') throw validationFailed(issues, `Launch validation failed: ${issues.length} issues.`);
    if (!input.confirm || l.status === 'published') return publishView(ctx, l, nodes, campaignAccounts, warnings, input.confirm === true);

    const accounts = new Map<string, BrandAdAccount>();
    for (const id of new Set(campaignAccounts.values())) accounts.set(id!, await ctx.platforms.account(ctx.db, l.brandId, id!));
    // Converted before anything is reserved: a currency without a rate answers 503 and publishes nothing.
    const counted = await countLaunch(ctx, l.brandId, nodes, campaignAccounts);
    const ceiling = await publishLaunch(
      ctx,
      {
        launch: l,
        nodes,
        campaignAccounts: campaignAccounts as Map<string, string>,
        accounts,
        counted,
        campaignAmounts: new Map(campaignAmounts(nodes, campaignAccounts).map((c) => [c.campaignId, c.amountMinorUnits])),
        creatives: await creativesFor(ctx, l.brandId, nodes),
      },
      resume,
    );
    l = await loadLaunch(ctx.db, l.brandId, l.id);
    nodes = await loadNodes(ctx.db, l.id);
    return publishView(ctx, l, nodes, campaignAccounts, warnings, true, ceiling);
  },
});

const LEVEL_OF = { CAMPAIGN: 'campaign', ADSET: 'adset' } as const;

const editLiveCampaign = defineOperation({
  name: 'edit-live-campaign',
  method: 'POST',
  path: '/brands/{brandId}/launches/{launchId}/nodes/{nodeId}/live-budget',
  scope: 'publish',
  errors: ['conflict', 'unprocessable', 'capability_unsupported'],
  idempotency: 'required',
  input: 'edit-live-campaign#/$defs/input',
  output: 'edit-live-campaign#/$defs/output',
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
  tag: 'launches',
  toolset: 'launch',
  transactional: false,
  summary: 'Change the budget of a live campaign or ad set on the ad platform; the new amount counts against the key\'s ceiling (in US cents).',
  description:
    "amount is in the minor units of the node's ad account currency (cents for USD, yen for JPY, fils for KWD), at least 100 (and the platform minimum). " +
    'It counts against the credential\'s ceiling in US cents at the FX_RATES rate, rounded up (no rate for the currency: 503 unavailable, nothing changes). ' +
    'A node of a launch that is still a draft answers 409 conflict: change draft budgets through the node properties.',
  uses: ['platforms', 'metrics', 'activity', 'events', 'config'],
  async handler(ctx, input) {
    requireCeiling(ctx.principal);
    const l = await loadLaunch(ctx.db, ctx.brand.id, input.launchId);
    const node = await findNode(ctx.db, l.id, input.nodeId);
    if (!node) throw notFound(`Node ${input.nodeId} of launch ${l.id}`);
    if (node.nodeType === 'ad') throw validationFailed([{ field: 'nodeId', code: 'invalid_value', message: 'budgets live on campaigns and ad sets, not on ads' }]);
    if (LEVEL_OF[input.level] !== node.nodeType) {
      throw validationFailed([{ field: 'level', code: 'invalid_value', message: `must be ${node.nodeType === 'campaign' ? 'CAMPAIGN' : 'ADSET'} for node ${node.id} (a ${node.nodeType})` }]);
    }
    if (node.status !== 'live' || !node.platformId) {
      throw new ServiceError('conflict', `Node ${node.id} is still a draft; change draft budgets through the node's properties (PATCH the node).`, { status: node.status });
    }
    const nodes = await loadNodes(ctx.db, l.id);
    const campaign = node.nodeType === 'campaign' ? node : nodes.find((n) => n.id === node.parentId)!;
    const campaignBudget = budgetOf(campaign.properties);
    if (node.nodeType === 'adset' && campaignBudget) {
      throw new ServiceError('unprocessable', `The campaign of ad set ${node.id} carries the budget; edit the campaign's budget instead.`, { level: 'CAMPAIGN', nodeId: campaign.id });
    }
    if (node.nodeType === 'campaign' && !campaignBudget) {
      throw new ServiceError('unprocessable', `Campaign ${node.id} has its budgets on its ad sets; edit an ad set's budget instead.`, { level: 'ADSET', nodeIds: (childrenOf(nodes).get(node.id) ?? []).map((n) => n.id) });
    }
    const account = await ctx.platforms.account(ctx.db, l.brandId, node.accountId!);
    const rules = RULES[account.platform];
    // Minimums are in the account's own minor units (100 means 100 yen on a JPY account).
    const min = node.nodeType === 'campaign' ? rules.minCampaignBudget : rules.minAdSetBudget;
    if (input.amount < min) {
      throw validationFailed([{ field: 'amount', code: 'too_small', message: `must be at least ${min} in the ad account's minor units (${formatMinor(min, account.currency)}) on ${account.platform}` }]);
    }
    // Converted before anything is reserved: a currency without a rate answers 503 and changes nothing.
    const part = { accountId: account.accountId, currency: account.currency, amountMinorUnits: input.amount, countedUsdCents: toUsdCents(input.amount, account.currency, ctx.config.fxRates) };
    const counted: Counted = { totalUsdCents: part.countedUsdCents, accounts: [part] };

    const knex = ctx.db;
    const now = ctx.now();
    let commitmentId = 0;
    await reserving(
      () =>
        inTransaction(knex, async (trx) => {
          await reserveSpend(trx, ctx.principal, counted);
          commitmentId = await insertCommitments(
            trx,
            [{ organizationId: ctx.principal.organizationId, ...commitmentOwner(ctx.principal), launchId: l.id, nodeId: node.id, kind: 'budget_edit', ...commitmentAmount(part) }],
            now,
          );
        }),
      { ctx, brandId: l.brandId, operation: 'edit-live-campaign' },
    );
    const budget = { period: input.budgetType, amountMinorUnits: input.amount };
    try {
      await ctx.platforms.adapterFor(account.platform).setBudget(account, { level: node.nodeType, id: node.platformId }, budget);
    } catch (err) {
      await inTransaction(knex, async (trx) => {
        await releaseSpend(trx, { ...commitmentOwner(ctx.principal), countedUsdCents: part.countedUsdCents });
        await settleCommitment(trx, commitmentId, 'released', ctx.now());
      });
      throw err;
    }
    await ctx.metrics.invalidate(accountScope(account));
    // The budget is live and its amount counted: from here on, bookkeeping failures must not fail the call
    // (a retry would act and count again). The reservation then simply stays recorded as reserved.
    let ceiling: CeilingView;
    try {
      ceiling = await inTransaction(knex, async (trx) => {
        const properties = { ...node.properties, budget: input.budgetType === 'daily' ? { dailyAmount: input.amount } : { lifetimeAmount: input.amount } };
        await updateNodeProperties(trx, node.id, properties, ctx.now());
        await settleCommitment(trx, commitmentId, 'committed', ctx.now());
        await ctx.activity.record(
          { brandId: l.brandId, accountId: account.accountId, entityType: node.nodeType, entityId: node.id, entityName: node.properties.name ?? null, action: 'budget.updated', money: { amountMinorUnits: input.amount, currency: account.currency, countedUsdCents: part.countedUsdCents } },
          trx,
        );
        await ctx.events.emit(trx, {
          organizationId: ctx.principal.organizationId,
          brandId: l.brandId,
          type: 'budget.changed',
          data: {
            brandId: l.brandId,
            launchId: String(l.id),
            nodeId: node.id,
            level: node.nodeType as 'campaign' | 'adset',
            platformId: node.platformId!,
            budget,
            accountId: account.accountId,
            currency: account.currency,
            countedUsdCents: part.countedUsdCents,
            actor: ctx.principal.actorLabel.slice(0, 255),
          },
        });
        return ceilingOf(trx, ctx.principal);
      });
    } catch (err) {
      ctx.log.error({ requestId: ctx.requestId, err, nodeId: node.id }, 'live budget changed on the platform but its bookkeeping failed');
      ceiling = await ceilingOf(ctx.db, ctx.principal).catch(() => ({
        // Storage is failing: the committed total is at least this call's amount.
        limitMinorUnits: ctx.principal.publishCeilingCents,
        committedMinorUnits: part.countedUsdCents,
        remainingMinorUnits: null,
      }));
    }
    return { nodeId: node.id, level: input.level, platformId: node.platformId, budget, ...part, ceiling };
  },
});

/** The publishing operations, in catalogue order. */
export const publishOperations: OperationDefinition[] = [launchCampaign, editLiveCampaign];
