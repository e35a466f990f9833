// Publishing: launch-campaign (validate and preview, or publish with confirm: true) and
// edit-live-campaign (change the budget of a live campaign or ad set). Both spend money: scope
// publish, an Idempotency-Key, and the calling key's ceiling. Their steps are publish.ts and
// live-budget.ts; the answer of a publish is publish-view.ts.

import { defineOperation, type OperationDefinition, type ServiceContext } from '../catalogue/define.js';
import { ServiceError, validationFailed } from '../errors.js';
import type { BrandAdAccount } from '../platforms/registry.js';
import { requireCeiling } from './ceiling.js';
import { creativesFor, validationContextFor } from './context.js';
import { askAtPreview } from './ask-platform.js';
import { changeLiveBudget } from './live-budget.js';
import { publishingConflict, publishLaunch, publishLeaseMs } from './publish.js';
import { countLaunch, publishView, requirePlan } from './publish-view.js';
import { loadLaunch, loadNodes, type LaunchRow, type NodeRow } from './store.js';
import { approvalNeeded } from '../approvals/gate.js';
import { campaignAmounts, validateLaunch } from './validate.js';

const launchCampaign = defineOperation({
  name: 'launch-campaign',
  method: 'POST',
  path: '/brands/{brandId}/launches/{launchId}/publish',
  scope: 'publish',
  errors: ['conflict', 'stale_read', 'capability_unsupported'],
  idempotency: 'required',
  input: 'launch-campaign#/$defs/input',
  output: 'launch-campaign#/$defs/output',
  // Moves money on an ad platform: clients that gate destructive tools ask before calling it.
  annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: true },
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
    'Validation failures answer 400 "Launch validation failed: <n> issues." with one detail per issue; in live mode the preview also asks the platform ' +
    "(Meta validate_only on each campaign, TikTok's URL tool on each landing page; a refusal is an issue in its words) and a Meta publish asks about each level before creating it. A failed publish removes what " +
    'it created and releases the reservation. A publish interrupted by anything (a timeout, a crash, an outage) ends in published or ' +
    'publish_failed by itself within the job lease plus a minute; a 504 says so and names the launch in details.launchId. ' +
    "Send the preview's planFingerprint with confirm: true to publish only that plan (changed since: 409 stale_read).",
  uses: ['platforms', 'metrics', 'activity', 'events', 'progress', 'config', 'idempotency', 'trackers'],
  onTimeout: (input) =>
    input.confirm === true
      ? {
          message:
            `The publish of launch ${String(input.launchId)} goes on and ends in published or publish_failed by itself; ` +
            `follow it with get-launch (launch ${String(input.launchId)}), or retry with the same Idempotency-Key for its answer.`,
          details: { launchId: String(input.launchId), status: 'publishing' },
        }
      : {
          message: 'Nothing was published; retry with the same Idempotency-Key.',
          details: { launchId: String(input.launchId), status: 'unchanged' },
        },
  async handler(ctx, input) {
    requireCeiling(ctx.principal);
    let l = await loadLaunch(ctx.db, ctx.brand.id, input.launchId);
    let nodes = await loadNodes(ctx.db, l.id);
    const stale = l.updatedAt < ctx.now() - publishLeaseMs(ctx);
    const resume = input.confirm && l.status === 'publishing' && (ctx.idempotency?.resumed === true || stale);
    if (input.confirm && l.status === 'published') {
      if (!ctx.idempotency?.resumed) throw new ServiceError('conflict', `Launch ${l.id} is already published.`, { status: l.status });
    } else if (input.confirm && l.status === 'publishing' && !resume) {
      throw await publishingConflict(ctx.db, l.id);
    }
    // What the person confirmed is what is published: a plan named by its fingerprint must still be the launch's.
    if (input.confirm && !resume && l.status !== 'published') requirePlan(l.id, nodes, input.planFingerprint, 'nothing was published');
    const vctx = await validationContextFor(ctx, l, nodes);
    const { issues, warnings, campaignAccounts } = validateLaunch(nodes, vctx);
    if (issues.length && l.status !== 'published') throw validationFailed(issues, `Launch validation failed: ${issues.length} issues.`);
    // A preview asks the platform itself where it can (Meta validate_only on each campaign create, TikTok's URL tool on each landing page).
    if (!input.confirm && l.status !== 'published') {
      const refused = await askAtPreview(ctx, l.brandId, nodes, campaignAccounts);
      if (refused.length) throw validationFailed(refused, `Launch validation failed: ${refused.length} issues.`);
    }
    if (!input.confirm || l.status === 'published') return publishView(ctx, l, nodes, campaignAccounts, warnings, input.confirm === true);
    // An organization where people decide: an agent's publish waits for a person's approval of exactly this plan.
    if (!resume) {
      const waiting = await publishApproval(ctx, l, nodes, campaignAccounts, warnings);
      if (waiting) return waiting;
    }

    const accounts = new Map<string, BrandAdAccount>();
    for (const id of new Set(campaignAccounts.values())) accounts.set(id!, await ctx.platforms.account(ctx.db, l.brandId, id!));
    // Converted before anything is reserved: a currency without a rate answers 503 and publishes nothing.
    const counted = await countLaunch(ctx, l.brandId, nodes, campaignAccounts);
    const publishing = publishLaunch(
      ctx,
      {
        launch: l,
        nodes,
        campaignAccounts: campaignAccounts as Map<string, string>,
        accounts,
        counted,
        campaignAmounts: new Map(campaignAmounts(nodes, campaignAccounts).map((c) => [c.campaignId, c.amountMinorUnits])),
        creatives: await creativesFor(ctx, l.brandId, nodes),
        creativesDir: ctx.config.creativesDir,
      },
      resume,
    );
    let ceiling: Awaited<typeof publishing> | undefined;
    try {
      ceiling = await publishing;
    } catch (err) {
      // A retry of a crashed publish may meet the finish-publish job already carrying it on: the
      // retry answers what that publish comes to instead of a conflict with itself.
      if (!resume || !(err instanceof ServiceError) || err.code !== 'conflict') throw err;
      l = await settledLaunch(ctx.db, l.brandId, l.id, err);
    }
    l = await loadLaunch(ctx.db, l.brandId, l.id);
    nodes = await loadNodes(ctx.db, l.id);
    return publishView(ctx, l, nodes, campaignAccounts, warnings, true, ceiling);
  },
});

/** The approval an agent's publish waits for (paths.md "Approvals by a person"), or null when it may go ahead. */
async function publishApproval(
  ctx: Parameters<typeof publishView>[0] & ServiceContext<'config' | 'events'>,
  l: LaunchRow,
  nodes: NodeRow[],
  campaignAccounts: Map<string, string | null>,
  warnings: Parameters<typeof publishView>[4],
) {
  const preview = await publishView(ctx, l, nodes, campaignAccounts, warnings, false);
  return approvalNeeded(ctx, {
    kind: 'publish',
    brandId: l.brandId,
    operation: 'launch-campaign',
    input: { brandId: l.brandId, launchId: l.id, confirm: true, planFingerprint: preview.planFingerprint },
    launchId: l.id,
    nodeId: null,
    plan: { title: l.title, counts: preview.counts, plan: preview.plan, budget: preview.budget, warnings: preview.warnings },
    planFingerprint: preview.planFingerprint,
    amounts: preview.budget.accounts as Array<{ accountId: string; currency: string; amountMinorUnits: number; countedUsdCents: number }>,
  });
}

/** Waits (at most 20 s, within the request's budget) for another runner's publish of the launch to end; published answers it, anything else rethrows `conflict`. */
async function settledLaunch(db: Parameters<typeof loadLaunch>[0], brandId: number, launchId: number, conflict: ServiceError) {
  for (let waited = 0; waited < 20_000; waited += 250) {
    const launch = await loadLaunch(db, brandId, launchId);
    if (launch.status === 'published') return launch;
    if (launch.status !== 'publishing') throw conflict;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw conflict;
}

const editLiveCampaign = defineOperation({
  name: 'edit-live-campaign',
  method: 'POST',
  path: '/brands/{brandId}/launches/{launchId}/nodes/{nodeId}/live-budget',
  scope: 'publish',
  errors: ['conflict', 'stale_read', 'unprocessable', 'capability_unsupported'],
  idempotency: 'required',
  input: 'edit-live-campaign#/$defs/input',
  output: 'edit-live-campaign#/$defs/output',
  // Moves money on an ad platform: clients that gate destructive tools ask before calling it.
  annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: true },
  tag: 'launches',
  toolset: 'launch',
  transactional: false,
  summary: "Change the budget of a live campaign or ad set on the ad platform; the new amount counts against the key's ceiling (in US cents).",
  description:
    "amount is in the minor units of the node's ad account currency (cents for USD, yen for JPY, fils for KWD), at least 100 (and the platform minimum). " +
    "It counts against the credential's ceiling in US cents at the FX_RATES rate, rounded up (no rate for the currency: 503 unavailable, nothing changes). " +
    'A node of a launch that is still a draft answers 409 conflict: change draft budgets through the node properties. ' +
    'planFingerprint binds the call to this one change (the fingerprint a confirmation answered for it, in details.planFingerprint of a 409): ' +
    "another amount, node, level or budget type, a launch preview's fingerprint, or a node changed since answers 409 stale_read with the fingerprint of the change as sent, and nothing is sent to the ad platform.",
  uses: ['platforms', 'metrics', 'activity', 'events', 'config'],
  async handler(ctx, input) {
    requireCeiling(ctx.principal);
    const l = await loadLaunch(ctx.db, ctx.brand.id, input.launchId);
    return changeLiveBudget(ctx, l, input);
  },
});

/** The publishing operations, in catalogue order. */
export const publishOperations: OperationDefinition[] = [launchCampaign, editLiveCampaign];
