// A live budget change (edit-live-campaign) as steps, each with its undo: check the node and the
// amount, reserve the amount against the ceiling, set the budget on the ad platform (undo: release
// the reservation), then record it (node, commitment, activity, event) without failing the call.

import type { OwnTransactions, ServiceContext } from '../catalogue/define.js';
import { inTransaction } from '../db/connection.js';
import { ServiceError, notFound, validationFailed } from '../errors.js';
import type { Inputs } from '../catalogue/inputs.generated.js';
import { formatMinor, toUsdCents, type Counted } from '../money/convert.js';
import { accountScope } from '../platforms/live-read.js';
import { ceilingOf, commitmentAmount, commitmentOwner, releaseSpend, reserveSpend, reserving, type CeilingView } from './ceiling.js';
import { budgetChange, liveChangeFingerprint, requireLiveChange } from './live-change.js';
import { approvalNeeded } from '../approvals/gate.js';
import { RULES } from './rules.js';
import { planFingerprint } from './publish-view.js';
import { metaLiveBudgetIssue, scheduledDays } from './meta-rules.js';
import { MIN_ADGROUP_USD, MIN_CAMPAIGN_USD, floorOrigin } from '../platforms/tiktok/budgets.js';
import { findNode, insertCommitments, loadNodes, settleCommitment, updateNodeProperties, type LaunchRow } from './store.js';
import { budgetOf, childrenOf } from './tree.js';

const LEVEL_OF = { CAMPAIGN: 'campaign', ADSET: 'adset' } as const;

export type LiveBudgetContext = ServiceContext<'platforms' | 'metrics' | 'activity' | 'events' | 'config'> & OwnTransactions;

/** Sets the budget of a live campaign or ad set of launch `l` on its ad platform, counted against the caller's ceiling; answers edit-live-campaign. */
export async function changeLiveBudget(ctx: LiveBudgetContext, l: LaunchRow, input: Inputs['edit-live-campaign']) {
  const node = await findNode(ctx.db, l.id, input.nodeId);
  if (!node) throw notFound(`Node ${input.nodeId} of launch ${l.id}`);
  // A fingerprint binds exactly the change it was answered for: anything else is refused before any check or send.
  if (input.planFingerprint !== undefined)
    requireLiveChange(budgetChange(node, input), planFingerprint(await loadNodes(ctx.db, l.id)), input.planFingerprint, 'no budget was changed');
  if (node.nodeType === 'ad')
    throw validationFailed([{ field: 'nodeId', code: 'invalid_value', message: 'budgets live on campaigns and ad sets, not on ads' }]);
  if (LEVEL_OF[input.level] !== node.nodeType) {
    throw validationFailed([
      {
        field: 'level',
        code: 'invalid_value',
        message: `must be ${node.nodeType === 'campaign' ? 'CAMPAIGN' : 'ADSET'} for node ${node.id} (a ${node.nodeType})`,
      },
    ]);
  }
  if (node.status !== 'live' || !node.platformId) {
    throw new ServiceError('conflict', `Node ${node.id} is still a draft; change draft budgets through the node's properties (update-node).`, {
      status: node.status,
    });
  }
  const nodes = await loadNodes(ctx.db, l.id);
  const campaign = node.nodeType === 'campaign' ? node : nodes.find((n) => n.id === node.parentId)!;
  const campaignBudget = budgetOf(campaign.properties);
  if (node.nodeType === 'adset' && campaignBudget) {
    throw new ServiceError('unprocessable', `The campaign of ad set ${node.id} carries the budget; edit the campaign's budget instead.`, {
      level: 'CAMPAIGN',
      nodeId: campaign.id,
    });
  }
  if (node.nodeType === 'campaign' && !campaignBudget) {
    throw new ServiceError('unprocessable', `Campaign ${node.id} has its budgets on its ad sets; edit an ad set's budget instead.`, {
      level: 'ADSET',
      nodeIds: (childrenOf(nodes).get(node.id) ?? []).map((n) => n.id),
    });
  }
  const account = await ctx.platforms.account(ctx.db, l.brandId, node.accountId!);
  const rules = RULES[account.platform];
  // Minimums are in the account's own minor units (100 means 100 yen on a JPY account).
  const min = node.nodeType === 'campaign' ? rules.minCampaignBudget : rules.minAdSetBudget;
  if (input.amount < min) {
    throw validationFailed([
      {
        field: 'amount',
        code: 'too_small',
        message: `must be at least ${min} in the ad account's minor units (${formatMinor(min, account.currency)}) on ${account.platform}`,
      },
    ]);
  }
  // A live budget keeps the kind it was published with (Meta "About minimum budgets"; TikTok's updates take no budget_mode).
  const current = budgetOf(node.properties);
  if (current && current.period !== input.budgetType)
    throw new ServiceError(
      'conflict',
      `Node ${node.id} has a ${current.period} budget on the ad platform, which cannot become a ${input.budgetType} one; send budgetType ${current.period}, or publish a new ${node.nodeType} for a ${input.budgetType} budget.`,
      { budgetType: current.period },
    );
  if (account.platform === 'tiktok') {
    const floors = ctx.platforms.tiktokMinimums(account.currency);
    const floor = node.nodeType === 'campaign' ? floors.campaign : floors.adSet;
    const origin = floor ? floorOrigin(floor, node.nodeType === 'campaign' ? MIN_CAMPAIGN_USD : MIN_ADGROUP_USD, account.currency) : '';
    // A lifetime ad group's minimum is the daily one times its scheduled days (TikTok Help "About budgets").
    const days = input.budgetType === 'lifetime' ? (scheduledDays(node.properties.schedule, ctx.now()) ?? 1) : 1;
    if (floor !== null && input.amount < floor.amount * days)
      throw validationFailed([
        {
          field: 'amount',
          code: 'too_small',
          message:
            input.budgetType === 'lifetime'
              ? `is ${formatMinor(input.amount, account.currency)} for ${days} days; TikTok's lifetime minimum for an ad group is ${formatMinor(floor.amount, account.currency)} a day (${origin}), ${formatMinor(floor.amount * days, account.currency)} in all`
              : `is ${formatMinor(input.amount, account.currency)} a day; TikTok's minimum for ${node.nodeType === 'campaign' ? 'a campaign' : 'an ad group'} is ${formatMinor(floor.amount, account.currency)} (${origin})`,
        },
      ]);
  }
  const metaIssue =
    account.platform === 'meta'
      ? await metaLiveBudgetIssue(ctx, account, node, childrenOf(nodes).get(node.id) ?? [], { period: input.budgetType, amountMinorUnits: input.amount })
      : null;
  if (metaIssue) throw validationFailed([{ field: 'amount', code: 'too_small', message: metaIssue }]);
  const budget = { period: input.budgetType, amountMinorUnits: input.amount };
  const adapter = ctx.platforms.adapterFor(account.platform);
  // Asked before anything is reserved or sent (Meta validate_only): a refusal changes nothing.
  const refused = adapter.validateBudget ? await adapter.validateBudget(account, { level: node.nodeType, id: node.platformId }, budget) : null;
  if (refused) {
    const said = [
      refused.extra.platformCode !== undefined && `code ${refused.extra.platformCode}`,
      refused.extra.platformSubcode !== undefined && `subcode ${refused.extra.platformSubcode}`,
    ]
      .filter(Boolean)
      .join(', ');
    throw validationFailed([
      {
        field: 'amount',
        code: 'platform_refused',
        message: `the ad platform refused it when asked to validate it: ${refused.message}${said ? ` (${said})` : ''}`,
      },
    ]);
  }
  // Converted before anything is reserved: a currency without a rate answers 503 and changes nothing.
  const part = {
    accountId: account.accountId,
    currency: account.currency,
    amountMinorUnits: input.amount,
    countedUsdCents: toUsdCents(input.amount, account.currency, ctx.config.fxRates),
  };
  const counted: Counted = { totalUsdCents: part.countedUsdCents, accounts: [part] };
  // An organization where people decide: an agent's budget change waits for a person's approval of exactly this change.
  const change = budgetChange(node, input);
  const waiting = await approvalNeeded(ctx, {
    kind: 'live_budget',
    brandId: l.brandId,
    operation: 'edit-live-campaign',
    input: { ...input, planFingerprint: liveChangeFingerprint(change, planFingerprint(nodes)) },
    launchId: l.id,
    nodeId: node.id,
    plan: { title: l.title, name: node.properties.name ?? null, platform: account.platform, change },
    planFingerprint: liveChangeFingerprint(change, planFingerprint(nodes)),
    amounts: [part],
  });
  if (waiting) return waiting;

  const knex = ctx.db;
  const now = ctx.now();
  let commitmentId = 0;
  await reserving(
    () =>
      inTransaction(knex, async (trx) => {
        await reserveSpend(trx, ctx.principal, counted);
        commitmentId = await insertCommitments(
          trx,
          [
            {
              organizationId: ctx.principal.organizationId,
              ...commitmentOwner(ctx.principal),
              launchId: l.id,
              nodeId: node.id,
              kind: 'budget_edit',
              ...commitmentAmount(part),
            },
          ],
          now,
        );
      }),
    { ctx, brandId: l.brandId, operation: 'edit-live-campaign' },
  );
  try {
    await adapter.setBudget(account, { level: node.nodeType, id: node.platformId }, budget);
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
        {
          brandId: l.brandId,
          accountId: account.accountId,
          entityType: node.nodeType,
          entityId: node.id,
          entityName: node.properties.name ?? null,
          action: 'budget.updated',
          money: { amountMinorUnits: input.amount, currency: account.currency, countedUsdCents: part.countedUsdCents },
        },
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
}
