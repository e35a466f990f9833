// preview-launch: what launch-campaign would publish, read with the read scope alone, so a person
// deciding (the console's launch and review pages) sees the launch's issues and the plan and money
// an approval would commit without holding `publish`. It changes nothing and counts nothing.

import { defineOperation } from '../catalogue/define.js';
import { ServiceError } from '../errors.js';
import { toUsdCents } from '../money/convert.js';
import { validationContextFor } from './context.js';
import { planFingerprint } from './publish-view.js';
import { loadLaunch, loadNodes } from './store.js';
import { countsOf } from './tree.js';
import { campaignAmounts, validateLaunch, warningView } from './validate.js';
import { askAtPreview } from './ask-platform.js';

export const previewLaunch = defineOperation({
  name: 'preview-launch',
  method: 'GET',
  path: '/brands/{brandId}/launches/{launchId}/preview',
  scope: 'read',
  idempotency: 'none',
  input: 'preview-launch#/$defs/input',
  output: 'preview-launch#/$defs/output',
  // Asks Meta about the campaigns (validate_only): it reaches outside the service.
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: true },
  tag: 'launches',
  toolset: 'launch',
  summary: "Read what publishing a launch would do: its validation issues (as a list, not an error), counts, plan fingerprint and each ad account's amount.",
  description:
    "The same checks as launch-campaign without confirm (live, a launch its rules pass is put to Meta's validate_only and TikTok's URL tool), with the read scope: issues and warnings name the node and setting " +
    '(campaigns[<nodeId>].budget.dailyAmount) and say what to fix; valid is true when there are none. budget.accounts gives each ad ' +
    "account's total in its own currency's minor units and the US cents it would count against a publish ceiling at the FX_RATES rate " +
    '(null, with budget.countedUsdCents null, when the currency has no rate). planFingerprint is what launch-campaign, ' +
    'move-pipeline-card and a review approval bind to. A published launch reports no issues.',
  uses: ['platforms', 'trackers', 'config'],
  async handler(ctx, input) {
    const l = await loadLaunch(ctx.db, ctx.brand.id, input.launchId);
    const nodes = await loadNodes(ctx.db, l.id);
    const { issues, warnings, campaignAccounts } = validateLaunch(nodes, await validationContextFor(ctx, l, nodes));
    // As launch-campaign's preview: a launch our own rules pass is put to the platform where it can say (Meta validate_only, TikTok's URL tool).
    const asked = l.status !== 'published' && !issues.length ? await askAtPreview(ctx, l.brandId, nodes, campaignAccounts) : [];
    const shown = l.status === 'published' ? [] : [...issues, ...asked];
    const byAccount = new Map<string, number>();
    for (const c of campaignAmounts(nodes, campaignAccounts)) byAccount.set(c.accountId, (byAccount.get(c.accountId) ?? 0) + c.amountMinorUnits);
    const accounts = [];
    for (const [accountId, amountMinorUnits] of byAccount) {
      const { currency } = await ctx.platforms.account(ctx.db, ctx.brand.id, accountId);
      let countedUsdCents: number | null = 0;
      if (amountMinorUnits > 0) {
        try {
          countedUsdCents = toUsdCents(amountMinorUnits, currency, ctx.config.fxRates);
        } catch (err) {
          // A currency without a rate is shown as such; publishing it answers 503 until an operator adds one.
          if (!(err instanceof ServiceError) || err.code !== 'unavailable') throw err;
          countedUsdCents = null;
        }
      }
      accounts.push({ accountId, currency, amountMinorUnits, countedUsdCents });
    }
    return {
      launchId: String(l.id),
      status: l.status,
      valid: shown.length === 0,
      issues: shown.map((i) => ({ field: i.field, message: i.message })),
      warnings: warnings.map(warningView),
      counts: countsOf(nodes),
      planFingerprint: planFingerprint(nodes),
      budget: {
        accounts,
        countedUsdCents: accounts.some((a) => a.countedUsdCents === null) ? null : accounts.reduce((s, a) => s + a.countedUsdCents!, 0),
      },
    };
  },
});
