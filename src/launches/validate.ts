// Launch validation before publishing, the same at preview and publish and in both modes: what each
// level needs on its ad platform (docs/platforms.md). Issues use the contract's field form:
// campaigns[<nodeId>].<path>, adSets[<nodeId>].<path>, ads[<nodeId>].<path>.

import type { FieldIssue } from '../errors.js';
import { adAddressIssues, adSetAddressIssues } from '../schemas/ad-addresses.js';
import { COPY_LIMITS, hasEmoji, textLength } from '../platforms/text-limits.js';
import type { IdentityType, PlatformName, RegionalIdentities } from '../platforms/port.js';
import { CAMPAIGN_GOALS, DISPLAY_NAME_MAX, TIKTOK_PLACEMENTS } from '../platforms/tiktok/mapping.js';
import { RULES } from './rules.js';
import { metaAdSetIssues, metaCampaignIssues, type MetaFacts } from './meta-rules.js';
import { tiktokMoreIssues } from './tiktok-rules.js';
import { smartPlusCampaign, smartPlusElsewhere, smartPlusIssues } from './smart-plus-rules.js';
import { tiktokLength } from '../platforms/tiktok/rules.js';
import type { Floor } from '../platforms/tiktok/budgets.js';
import { sayer } from './rule-sources.js';
import { DEFAULT_GRAPH_VERSION } from '../platforms/meta/versions.js';
import type { NodeRow } from './store.js';
import { budgetOf, childrenOf } from './tree.js';

/** Who an ad account's ads speak as, as stored on the account (null when unset). */
export interface AccountSpeaker {
  pageId: string | null;
  instagramUserId: string | null;
  identityId: string | null;
  identityType: IdentityType | null;
  /** What the platform granted the account (bootstrap.md): a BC_AUTH_TT identity's Business Center, allowlisted features, regional identities. */
  identityBcId?: string | null;
  allowlisted?: string[];
  /** Meta: the verified identity ids per country that needs them (SG, TW). */
  regionalIdentities?: RegionalIdentities | null;
  /** TikTok: whether the advertiser may use Smart+ (bootstrap.md smartPlusAllowed). */
  smartPlusAllowed?: boolean;
}

export interface ValidationContext {
  /** The brand's ad accounts and their platforms. */
  accounts: Map<string, PlatformName>;
  /** The page or identity each of the brand's ad accounts speaks as. */
  speakers: Map<string, AccountSpeaker>;
  /** Per ad set (node id), the targeted countries its platform cannot target for it (TikTok: for its objective and placements). */
  unknownCountries: Map<string, Set<string>>;
  /** The launch's default account (the brand's only one), if any. */
  defaultAccountId: string | null;
  /** Creative ids that exist in the brand. */
  creativeIds: Set<number>;
  /** Of those, the images (TikTok runs them only outside its in-feed placement). */
  imageCreativeIds?: Set<number>;
  /** Copy records the ads name (copyGenerationId) that exist in the brand, with the platform each was written for. */
  copies?: Map<number, PlatformName>;
  trackerConnected: boolean;
  now: number;
  /** Per Meta ad account the launch publishes to, its minimum budgets and DSA names (absent: not known, not checked). */
  metaFacts?: Map<string, MetaFacts>;
  /** The Graph version the service calls (META_GRAPH_URL): the placements Meta removed by then are refused. */
  graphVersion?: string;
  /** Per TikTok ad account, its currency. */
  tiktokCurrencies?: Map<string, string>;
  /** Per TikTok ad account, TikTok's floors in its minor units (its currency's, else USD at the FX_RATES rate). */
  tiktokMinimums?: Map<string, { adSet: Floor | null; campaign: Floor | null } | null>;
  /** The brand's name (a TikTok landing-page ad's display name when the ad names none). */
  brandName?: string | null;
  /** Whether Meta itself is asked about the launch (live mode: validate_only), so a third-party-only rule warns rather than refuses. */
  platformAsks?: boolean;
}

/** A warning beside a preview's issues: it never blocks a publish; `source` names where its rule comes from. */
export interface Warning {
  field: string;
  message: string;
  source?: string;
}

/** A warning as previews answer it: field and message, and the rule's source when it names one. */
export const warningView = (w: Warning) => ({ field: w.field, message: w.message, ...(w.source ? { source: w.source } : {}) });

export interface ValidationResult {
  issues: FieldIssue[];
  warnings: Warning[];
  /** Resolved ad account per campaign node id (null when it could not be resolved). */
  campaignAccounts: Map<string, string | null>;
}

/** The URL-tag macro that puts the ad platform's campaign id in sub3, per platform (docs/tracker.md). */
export const SUB3_MACRO: Record<PlatformName, string> = { meta: 'sub3={{campaign.id}}', tiktok: 'sub3=__CAMPAIGN_ID__' };

function carriesSub3(urlTags: string | undefined, platform: PlatformName | null): boolean {
  const macros = platform ? [SUB3_MACRO[platform]] : Object.values(SUB3_MACRO);
  return (urlTags ?? '').split('&').some((part) => macros.includes(part));
}

/** Every issue that would stop the launch from publishing, and the warnings that would not. */
export function validateLaunch(nodes: NodeRow[], ctx: ValidationContext): ValidationResult {
  const issues: FieldIssue[] = [];
  const warnings: Warning[] = [];
  const campaignAccounts = new Map<string, string | null>();
  const kids = childrenOf(nodes);
  const campaigns = kids.get(null) ?? [];
  const issue = (field: string, message: string) => issues.push({ field, message });
  const warn = (field: string, message: string, source: string) => warnings.push({ field, message, source });
  if (campaigns.length === 0) issue('campaigns', 'the launch has no campaign; add one with nodeType campaign');

  for (const c of campaigns) {
    const at = `campaigns[${c.id}]`;
    const p = c.properties;
    if (!p.name) issue(`${at}.name`, 'is required');

    let accountId: string | null = p.accountId ?? ctx.defaultAccountId;
    if (p.accountId && !ctx.accounts.has(p.accountId)) {
      issue(`${at}.accountId`, `${p.accountId} is not an ad account of this brand`);
      accountId = null;
    } else if (!accountId) {
      issue(
        `${at}.accountId`,
        ctx.accounts.size === 0
          ? 'the brand has no ad account to publish to; connect one first'
          : `is required: the brand has several ad accounts (${[...ctx.accounts.keys()].join(', ')})`,
      );
    }
    campaignAccounts.set(c.id, accountId);
    const platform = accountId ? ctx.accounts.get(accountId)! : null;
    const rules = platform ? RULES[platform] : null;

    if (!p.objective) issue(`${at}.objective`, 'is required');
    else if (rules && !rules.goals[p.objective]) issue(`${at}.objective`, `must be one of ${Object.keys(rules.goals).join(', ')} on ${platform}`);

    const campaignBudget = budgetOf(p);
    const budgetPath = (b: { period: string }) => (b.period === 'daily' ? 'budget.dailyAmount' : 'budget.lifetimeAmount');
    if (campaignBudget && rules && campaignBudget.amountMinorUnits < rules.minCampaignBudget) {
      issue(`${at}.${budgetPath(campaignBudget)}`, `must be at least ${rules.minCampaignBudget} (minor units of the ad account's currency) on ${platform}`);
    }
    const adSets = kids.get(c.id) ?? [];
    if (adSets.length === 0) issue(`${at}.adSets`, 'needs at least one ad set');
    const speaker = accountId ? ctx.speakers.get(accountId) : undefined;
    if (platform === 'tiktok') {
      tiktokIssues(c, adSets, kids, ctx, issue);
      smartPlusIssues(c, adSets, kids, accountId ? { id: accountId, smartPlusAllowed: speaker?.smartPlusAllowed === true } : null, ctx.imageCreativeIds, issue);
      tiktokMoreIssues(
        c,
        adSets,
        kids,
        accountId
          ? {
              id: accountId,
              currency: ctx.tiktokCurrencies?.get(accountId) ?? 'USD',
              minimums: ctx.tiktokMinimums?.get(accountId) ?? null,
              identityType: speaker?.identityType ?? null,
              identityBcId: speaker?.identityBcId ?? null,
              allowlisted: speaker?.allowlisted ?? [],
              brandName: ctx.brandName ?? null,
            }
          : null,
        ctx.now,
        issue,
        warn,
        sayer(issue, warn, false),
      );
    } else if (platform) {
      tiktokFieldsElsewhere(platform, adSets, kids, issue);
      smartPlusElsewhere(c, platform, issue);
    }
    const metaFacts = platform === 'meta' && accountId ? ctx.metaFacts?.get(accountId) : undefined;
    const metaAccount =
      platform === 'meta' && accountId
        ? { id: accountId, currency: metaFacts?.currency ?? 'USD', pageId: speaker?.pageId ?? null, regionalIdentities: speaker?.regionalIdentities ?? null }
        : null;
    const graph = { version: ctx.graphVersion ?? DEFAULT_GRAPH_VERSION, now: ctx.now };
    if (platform === 'meta') metaCampaignIssues(c, adSets, metaAccount, metaFacts, graph, issue);

    for (const s of adSets) {
      const sat = `adSets[${s.id}]`;
      const sp = s.properties;
      if (!sp.name) issue(`${sat}.name`, 'is required');
      for (const [field, problem] of adSetAddressIssues(sp)) issue(`${sat}.${field}`, problem);
      const goals = rules && p.objective ? rules.goals[p.objective] : undefined;
      if (!sp.optimizationGoal) issue(`${sat}.optimizationGoal`, goals ? `is required; one of ${goals.join(', ')}` : 'is required');
      else if (goals && !goals.includes(sp.optimizationGoal))
        issue(`${sat}.optimizationGoal`, `does not go with objective ${p.objective}; use one of ${goals.join(', ')}`);

      const setBudget = budgetOf(sp);
      if (campaignBudget && setBudget) issue(`${sat}.budget`, 'must not be set: the campaign carries the budget (budget at exactly one level)');
      if (!campaignBudget && !setBudget) issue(`${sat}.budget.dailyAmount`, 'is required: set a budget on the campaign or on every ad set');
      if (setBudget && rules && setBudget.amountMinorUnits < rules.minAdSetBudget) {
        issue(`${sat}.${budgetPath(setBudget)}`, `must be at least ${rules.minAdSetBudget} (minor units of the ad account's currency) on ${platform}`);
      }
      const lifetime = (setBudget ?? campaignBudget)?.period === 'lifetime';
      if (platform === 'meta') metaAdSetIssues(s, c, metaAccount, metaFacts, graph, issue, warn, sayer(issue, warn, ctx.platformAsks === true));
      else if (platform && sp.advantageAudience !== undefined) issue(`${sat}.advantageAudience`, `is a Meta setting; ${platform} has no Advantage+ audience`);

      const t = sp.targeting ?? {};
      if (!(t.countries?.length || t.cities?.length)) issue(`${sat}.targeting.countries`, 'is required: target at least one country (or city)');
      const untargetable = (t.countries ?? []).filter((code: string) => ctx.unknownCountries.get(s.id)?.has(code));
      if (untargetable.length)
        issue(
          `${sat}.targeting.countries`,
          `${untargetable.join(', ')} cannot be targeted on ${platform} (not a country its targeting lists${platform === 'tiktok' ? " for this ad set's objective and placements" : ''}); use ISO 3166-1 alpha-2 codes the platform serves`,
        );
      if (typeof t.ageMin === 'number' && typeof t.ageMax === 'number' && t.ageMin > t.ageMax) issue(`${sat}.targeting.ageMin`, 'must not be above ageMax');

      const start = sp.schedule?.startTime ? Date.parse(sp.schedule.startTime) : null;
      const end = sp.schedule?.endTime ? Date.parse(sp.schedule.endTime) : null;
      if (start !== null && start <= ctx.now) issue(`${sat}.schedule.startTime`, 'must be in the future (omit it to start at once)');
      if (end !== null && end <= (start ?? ctx.now)) issue(`${sat}.schedule.endTime`, start !== null ? 'must be after startTime' : 'must be in the future');
      if (lifetime && end === null) issue(`${sat}.schedule.endTime`, 'is required with a lifetime budget');

      const ads = kids.get(s.id) ?? [];
      if (ads.length === 0) issue(`${sat}.ads`, 'needs at least one ad');
      for (const a of ads) {
        const aat = `ads[${a.id}]`;
        const ap = a.properties;
        if (!ap.name) issue(`${aat}.name`, 'is required');
        for (const [field, problem] of adAddressIssues(ap)) issue(`${aat}.${field}`, problem);
        if (ap.creativeId !== undefined && !ctx.creativeIds.has(ap.creativeId))
          issue(`${aat}.creativeId`, `creative ${ap.creativeId} does not exist in this brand`);
        else if (ap.creativeId === undefined) {
          // TikTok's single-image and single-video ads need their file; a Meta link ad shows the link's own preview.
          if (platform === 'tiktok') issue(`${aat}.creativeId`, 'is required on TikTok: attach an image or video creative (creativeId)');
          else if (ap.postId === undefined && !ap.linkUrl)
            issue(`${aat}.creativeId`, 'attach a creative (creativeId), an existing post (postId), or a link (linkUrl) for a link ad');
        }
        if (platform) speakerIssues(platform, accountId ? ctx.speakers.get(accountId) : undefined, accountId, ap, aat, issue);
        if (platform === 'meta') {
          for (const [key, limit] of [
            ['headline', COPY_LIMITS.meta.headlines],
            ['primaryText', COPY_LIMITS.meta.primaryTexts],
            ['description', COPY_LIMITS.meta.descriptions],
          ] as const) {
            const text = ap[key];
            if (typeof text === 'string' && textLength(text) > limit) issue(`${aat}.${key}`, `is ${textLength(text)} characters; Meta allows at most ${limit}`);
          }
        }
        if (ap.copyGenerationId !== undefined) {
          const copyPlatform = ctx.copies?.get(ap.copyGenerationId);
          if (!copyPlatform) issue(`${aat}.copyGenerationId`, `copy ${ap.copyGenerationId} does not exist in this brand`);
          else if (platform && copyPlatform !== platform)
            issue(`${aat}.copyGenerationId`, `copy ${ap.copyGenerationId} was written for ${copyPlatform}; this ad publishes to ${platform}`);
        }
        if (platform === 'tiktok') {
          // TikTok shows one ad text: the primary text, else the headline. Only the one it receives is held to its limits.
          const key = typeof ap.primaryText === 'string' ? 'primaryText' : typeof ap.headline === 'string' ? 'headline' : null;
          const text: string | null = key ? ap[key] : null;
          if (key === null || text === null) issue(`${aat}.primaryText`, 'is required on TikTok: the ad text (1 to 100 characters)');
          else if (!text.trim()) issue(`${aat}.${key}`, 'is blank; TikTok ad text is 1 to 100 characters');
          else if (tiktokLength(text) > COPY_LIMITS.tiktok.primaryTexts)
            issue(
              `${aat}.${key}`,
              `is ${tiktokLength(text)} characters as TikTok counts them (Chinese and Japanese characters count two); TikTok ad text is 1 to ${COPY_LIMITS.tiktok.primaryTexts}`,
            );
          else if (hasEmoji(text)) issue(`${aat}.${key}`, 'contains emoji, which TikTok refuses in ad text');
        }
        if (rules && p.objective && rules.linkObjectives.includes(p.objective) && !ap.linkUrl && ap.postId === undefined) {
          issue(`${aat}.linkUrl`, `is required for objective ${p.objective}`);
        }
        if (ctx.trackerConnected && !carriesSub3(ap.urlTags, platform)) {
          const macro = platform ? SUB3_MACRO[platform] : `${SUB3_MACRO.meta} (Meta) or ${SUB3_MACRO.tiktok} (TikTok)`;
          warnings.push({ field: `${aat}.urlTags`, message: `add ${macro} so the click tracker can match this campaign's clicks and receive its spend` });
        }
      }
    }
  }
  return { issues, warnings, campaignAccounts };
}

/**
 * Who an ad speaks as: a Meta ad needs a Facebook Page, a TikTok ad an identity, each from the ad's
 * own properties or else its ad account; the other platform's fields are refused.
 */
function speakerIssues(
  platform: PlatformName,
  account: AccountSpeaker | undefined,
  accountId: string | null,
  ap: Record<string, any>,
  at: string,
  issue: (field: string, message: string) => void,
): void {
  const where = accountId ? `ad account ${accountId}` : 'its ad account';
  if (platform === 'meta') {
    for (const key of ['identityId', 'identityType'] as const)
      if (ap[key] !== undefined) issue(`${at}.${key}`, 'is a TikTok field; a Meta ad runs as a Facebook Page (pageId)');
    if (!(ap.pageId ?? account?.pageId))
      issue(`${at}.pageId`, `is required: a Meta ad runs as a Facebook Page; set pageId on the ad or on ${where} (update-ad-account)`);
    return;
  }
  for (const key of ['pageId', 'instagramUserId', 'postId'] as const)
    if (ap[key] !== undefined) issue(`${at}.${key}`, 'is a Meta field; a TikTok ad runs as an identity (identityId and identityType)');
  const identityId = ap.identityId ?? account?.identityId;
  if (!identityId) {
    issue(`${at}.identityId`, `is required: a TikTok ad runs as an identity; set identityId and identityType on the ad or on ${where} (update-ad-account)`);
  } else if (!(ap.identityType ?? (ap.identityId === undefined ? account?.identityType : null))) {
    issue(`${at}.identityType`, 'is required with identityId: CUSTOMIZED_USER, TT_USER, BC_AUTH_TT or AUTH_CODE');
  }
}

/**
 * The TikTok rules its specifications leave out (docs/platforms.md, section 8), the same at preview in
 * both modes, and what the TikTok adapter cannot send: a launch that passes them publishes as written.
 */
function tiktokIssues(
  campaign: NodeRow,
  adSets: NodeRow[],
  kids: Map<string | null, NodeRow[]>,
  ctx: ValidationContext,
  issue: (field: string, message: string) => void,
): void {
  const at = `campaigns[${campaign.id}]`;
  const p = campaign.properties;
  const budget = budgetOf(p);
  // Smart+ takes a lifetime campaign budget (BUDGET_MODE_TOTAL), sends no campaign-level goal and runs videos only (smart-plus-rules.ts).
  const smart = smartPlusCampaign(campaign);
  if (budget?.period === 'lifetime' && !smart)
    issue(
      `${at}.budget`,
      "TikTok's campaign budget optimization takes a daily budget only: use budget.dailyAmount, or give each ad set its own lifetime budget",
    );
  if (p.objective === 'APP_PROMOTION')
    issue(`${at}.objective`, 'TikTok app promotion needs the app (app_id), which a launch cannot name yet: choose another objective');
  if (p.bidStrategy !== undefined && p.bidStrategy !== 'LOWEST_COST_WITHOUT_CAP')
    issue(`${at}.bidStrategy`, 'is not sent to TikTok, which bids per ad set: remove it, and set bidAmount on an ad set for a bid');
  if (p.specialAdCategories?.includes('ISSUES_ELECTIONS_POLITICS'))
    issue(`${at}.specialAdCategories`, 'TikTok does not run ads about elections or politics: remove ISSUES_ELECTIONS_POLITICS');
  // Under budget optimization the campaign carries one optimization goal for every ad group.
  const campaignGoal = budget && !smart ? CAMPAIGN_GOALS[p.objective] : undefined;
  for (const s of adSets) {
    const sat = `adSets[${s.id}]`;
    const sp = s.properties;
    if (campaignGoal && sp.optimizationGoal && sp.optimizationGoal !== campaignGoal)
      issue(
        `${sat}.optimizationGoal`,
        `must be ${campaignGoal}: under a TikTok campaign budget the campaign optimizes for ${campaignGoal}; set it, or move the budget to the ad sets`,
      );
    const positions: string[] = Array.isArray(sp.placements?.positions) ? sp.placements.positions : [];
    const foreign = positions.filter((x) => !TIKTOK_PLACEMENTS.includes(x));
    if (foreign.length)
      issue(
        `${sat}.placements`,
        `${foreign.join(', ')} ${foreign.length > 1 ? 'are not TikTok placements' : 'is not a TikTok placement'}; use ${TIKTOK_PLACEMENTS.join(', ')} (or automatic: true)`,
      );
    else if (sp.placements?.automatic === true && positions.length)
      issue(`${sat}.placements`, 'names positions with automatic: true, which TikTok would not use; remove the positions or set automatic: false');
    if (sp.targeting?.cities?.length)
      issue(`${sat}.targeting.cities`, 'is not sent to TikTok, which targets countries here: remove the cities and name countries');
    if (sp.promotedObject?.pageId !== undefined) issue(`${sat}.promotedObject.pageId`, 'is a Meta field; remove it for TikTok');
    if (sp.promotedObject?.leadFormId !== undefined)
      issue(
        `${sat}.promotedObject.leadFormId`,
        'TikTok instant forms are not published by this service yet: remove it (a website lead ad uses promotedObject.pixelId)',
      );
    // An image cannot run in TikTok's in-feed placement, which automatic placement includes.
    const inFeed = sp.placements?.automatic === true || !positions.length || positions.includes('PLACEMENT_TIKTOK');
    for (const a of kids.get(s.id) ?? []) {
      const aat = `ads[${a.id}]`;
      const ap = a.properties;
      if (ap.callToAction === undefined || ap.callToAction === 'NO_BUTTON')
        issue(
          `${aat}.callToAction`,
          `is required on TikTok${ap.callToAction ? ', which has no ad without a button' : ''}: choose one, e.g. LEARN_MORE or SHOP_NOW`,
        );
      if (!smart && typeof ap.displayName === 'string' && !ap.displayName.trim())
        issue(`${aat}.displayName`, `is blank; TikTok shows 1 to ${DISPLAY_NAME_MAX} characters (leave it out to show the brand's name)`);
      if (inFeed && !smart && typeof ap.creativeId === 'number' && ctx.imageCreativeIds?.has(ap.creativeId))
        issue(
          `${aat}.creativeId`,
          `is an image, which TikTok does not run in its in-feed placement (PLACEMENT_TIKTOK, part of automatic placement): use a video, or set the ad set's placements.positions to ${TIKTOK_PLACEMENTS.filter((x) => x !== 'PLACEMENT_TIKTOK').join(' and/or ')}`,
        );
      if (ap.displayUrl !== undefined) issue(`${aat}.displayUrl`, 'is not sent to TikTok, whose ads show the landing page itself: remove it');
    }
  }
}

/** TikTok's own fields on another platform's ads, which would be dropped. */
function tiktokFieldsElsewhere(
  platform: PlatformName,
  adSets: NodeRow[],
  kids: Map<string | null, NodeRow[]>,
  issue: (field: string, message: string) => void,
): void {
  for (const s of adSets)
    for (const a of kids.get(s.id) ?? [])
      if (a.properties.displayName !== undefined) issue(`ads[${a.id}].displayName`, `is a TikTok field; remove it for ${platform}`);
}

/**
 * What a publish counts, campaign by campaign: the campaign's budget, or its ad sets' budgets, in
 * the minor units of the campaign's ad account. Campaigns without a resolved account are left out.
 */
export function campaignAmounts(
  nodes: NodeRow[],
  campaignAccounts: Map<string, string | null>,
): Array<{ campaignId: string; accountId: string; amountMinorUnits: number }> {
  const kids = childrenOf(nodes);
  const out: Array<{ campaignId: string; accountId: string; amountMinorUnits: number }> = [];
  for (const c of kids.get(null) ?? []) {
    const accountId = campaignAccounts.get(c.id);
    if (!accountId) continue;
    const own = budgetOf(c.properties);
    const amountMinorUnits = own ? own.amountMinorUnits : (kids.get(c.id) ?? []).reduce((s, a) => s + (budgetOf(a.properties)?.amountMinorUnits ?? 0), 0);
    out.push({ campaignId: c.id, accountId, amountMinorUnits });
  }
  return out;
}
