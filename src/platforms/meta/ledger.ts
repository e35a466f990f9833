// The Meta ledger: every parameter the Meta adapter sends to the Graph Marketing API, where it goes,
// what Meta's own specification, reference pages, changelogs and SDKs say of it, and the versions that
// take it (`added` and `removed` only where a version bounds it; the service's version table starts at
// v22.0). The ledger test (test/platforms/ledger.test.ts) records every request of a publish and its
// variations against the fake Graph API and fails on a parameter missing here or not taken by the
// version called. Moving META_GRAPH_URL on: docs/platforms.md, "What we send, version by version".

import type { LedgerEntry } from '../ledger.js';

/** The generated specification's entry for a parameter (facebook-business-sdk-codegen api_specs, v25.0 @ad2b0b6). */
const spec = (object: string, param: string): string => `codegen api_specs ${object}: ${param}`;

const V22_BLOG =
  'Meta blog "Marketing API v22.0 Impacts to Advantage+ Creative Enhancements" (2025-01-17): the Standard Enhancements bundle is deprecated "starting with MAPI V22.0 ... and all subsequent versions"';
const STANDARD_ENHANCEMENTS_PAGE =
  'Meta "Standard Enhancements for Advantage+ Creative": "Starting with Marketing API v22.0, opting in or out of standard enhancements will no longer be available ... The sub-features within the standard enhancement bundle for single image ads include image_template, image_touchups, text_optimizations, and inline_comment. For single video ads, the sub-features are video_auto_crop, text_optimizations, and inline_comment."';
const NODE_SDK_27 = 'Node SDK 27.0.0 release notes (2026-11-19, github.com/meta/*): not found in the stored sources';

/** Where each level's create and update go. */
const CAMPAIGN = ['POST /act_{id}/campaigns', 'POST /{id}'];
const ADSET = ['POST /act_{id}/adsets', 'POST /{id}'];
const AD = ['POST /act_{id}/ads', 'POST /{id}'];
/** A creative: standalone, inline in an ad create, inline in an ad update. */
const CREATIVE = ['POST /act_{id}/adcreatives', 'POST /act_{id}/ads > creative', 'POST /{id} > creative'];
const CREATES = ['POST /act_{id}/campaigns', 'POST /act_{id}/adsets', 'POST /act_{id}/ads', 'POST /act_{id}/adcreatives'];

const creativeFeature = (feature: string, extra: Partial<LedgerEntry> = {}): LedgerEntry => ({
  field: `degrees_of_freedom_spec.creative_features_spec.${feature}.enroll_status`,
  where: CREATIVE,
  source: `${spec('AdCreative', 'degrees_of_freedom_spec')} (AdCreativeFeaturesSpec); ${STANDARD_ENHANCEMENTS_PAGE}`,
  ...extra,
});

const story = (field: string, source: string): LedgerEntry => ({ field: `object_story_spec.${field}`, where: CREATIVE, source });
const linkData = (field: string) => story(`link_data.${field}`, spec('AdCreativeLinkData', field.split('.')[0]));
const videoData = (field: string) => story(`video_data.${field}`, spec('AdCreativeVideoData', field.split('.')[0]));

/** The reads the adapter pages through (limit, after). */
const PAGED_READS = [
  'GET /act_{id}/campaigns',
  'GET /act_{id}/adlabels',
  'GET /act_{id}/campaignsbylabels',
  'GET /act_{id}/adsetsbylabels',
  'GET /act_{id}/adsbylabels',
  'GET /act_{id}/adspixels',
  'GET /act_{id}/promote_pages',
  'GET /act_{id}/instagram_accounts',
  'GET /act_{id}/customaudiences',
  'GET /act_{id}/insights',
  'GET /{id}/leadgen_forms',
  'GET /search',
];

/** What the Meta adapter sends, endpoint by endpoint. */
export const META_LEDGER: readonly LedgerEntry[] = [
  // Every call, a batch's items included.
  { field: 'access_token', where: ['*'], source: 'Graph API "Access Tokens": every request carries access_token (a system user token)' },
  { field: 'batch', where: ['POST /'], source: 'Graph API "Batch Requests": batch (at most 50 items)' },
  { field: 'include_headers', where: ['POST /'], source: 'Graph API "Batch Requests": include_headers' },
  // Every create and update.
  {
    field: 'name',
    where: [...CREATES, 'POST /{id}', 'POST /act_{id}/advideos'],
    source: spec('AdAccount campaigns, adsets, ads, adcreatives, advideos', 'name'),
  },
  { field: 'status', where: [...CAMPAIGN, ...ADSET, ...AD], source: spec('Campaign, AdSet, Ad', 'status') },
  { field: 'adlabels[].name', where: CREATES, source: `${spec('AdAccount campaigns, adsets, ads, adcreatives', 'adlabels')}; Ad Labels reference` },
  {
    field: 'execution_options',
    where: [...CREATES, 'POST /{id}'],
    source: `${spec('Campaign, AdSet, Ad, AdCreative', 'execution_options')} ("validate_only": validate, create nothing)`,
  },
  { field: 'daily_budget', where: [...CAMPAIGN, ...ADSET], source: spec('Campaign, AdSet', 'daily_budget') },
  { field: 'lifetime_budget', where: [...CAMPAIGN, ...ADSET], source: spec('Campaign, AdSet', 'lifetime_budget') },
  { field: 'bid_strategy', where: [...CAMPAIGN, ...ADSET], source: spec('Campaign, AdSet', 'bid_strategy') },

  // Campaigns.
  { field: 'objective', where: CAMPAIGN, source: `${spec('Campaign', 'objective')}; Marketing API v21.0 changelog: ODAX objectives only` },
  {
    field: 'special_ad_categories',
    where: CAMPAIGN,
    source: `${spec('Campaign', 'special_ad_categories')}; Special Ad Category reference (CREDIT became FINANCIAL_PRODUCTS_SERVICES, January 2025)`,
  },
  { field: 'special_ad_category_country', where: CAMPAIGN, source: spec('Campaign', 'special_ad_category_country') },
  { field: 'buying_type', where: CAMPAIGN, source: spec('Campaign', 'buying_type') },
  {
    field: 'is_adset_budget_sharing_enabled',
    where: CAMPAIGN,
    source: `${spec('Campaign', 'is_adset_budget_sharing_enabled')}; Marketing API v24.0 changelog: a campaign without a campaign budget says it (version added: not found)`,
  },

  // Ad sets.
  { field: 'campaign_id', where: ['POST /act_{id}/adsets'], source: spec('AdAccount adsets', 'campaign_id') },
  { field: 'optimization_goal', where: ADSET, source: `${spec('AdSet', 'optimization_goal')}; enum_types adaccountadsets_optimization_goal_enum_param` },
  { field: 'billing_event', where: ADSET, source: `${spec('AdSet', 'billing_event')}; php-business-sdk issue 311 (left out: "missing parameter")` },
  { field: 'bid_amount', where: ADSET, source: spec('AdSet', 'bid_amount') },
  {
    field: 'destination_type',
    where: ADSET,
    source: `${spec('AdSet', 'destination_type')}; lead ads reference (ON_AD), Marketing API v20.0 changelog (ON_POST)`,
  },
  { field: 'start_time', where: ADSET, source: spec('AdSet', 'start_time') },
  { field: 'end_time', where: ADSET, source: spec('AdSet', 'end_time') },
  ...['pixel_id', 'custom_event_type', 'application_id', 'object_store_url', 'page_id'].map((f) => ({
    field: `promoted_object.${f}`,
    where: ADSET,
    source: `${spec('AdPromotedObject', f)}; subcode 1815430 "Please select a promoted object"`,
  })),
  {
    field: 'dsa_beneficiary',
    where: ADSET,
    source: `${spec('AdSet', 'dsa_beneficiary')}; Meta blog "New Marketing API requirements for ads targeting the EU" (2023)`,
  },
  { field: 'dsa_payor', where: ADSET, source: `${spec('AdSet', 'dsa_payor')}; same blog` },
  {
    field: 'regional_regulated_categories',
    where: ADSET,
    source: `${spec('AdSet', 'regional_regulated_categories')} (the enum lists indices; the names are what Meta's refusal asks for, third-party reports)`,
  },
  ...['singapore_universal_beneficiary', 'singapore_universal_payer', 'taiwan_universal_beneficiary', 'taiwan_universal_payer'].map((f) => ({
    field: `regional_regulation_identities.${f}`,
    where: ADSET,
    source: `${spec('AdSet', 'regional_regulation_identities')}; RegionalRegulationIdentities ${f} (@types/facebook-nodejs-business-sdk 22.0.0)`,
  })),
  // Targeting (Targeting spec; placements: Placement targeting reference).
  ...['age_min', 'age_max', 'genders', 'geo_locations.countries'].map((f) => ({
    field: `targeting.${f}`,
    where: ADSET,
    source: `${spec('Targeting', f.split('.')[0])}; Basic targeting: age_max "must be 65 or lower"`,
  })),
  ...['geo_locations.regions[].key', 'geo_locations.cities[].key'].map((f) => ({
    field: `targeting.${f}`,
    where: ADSET,
    source: spec('TargetingGeoLocation', f),
  })),
  { field: 'targeting.flexible_spec[].interests[].id', where: ADSET, source: spec('Targeting', 'flexible_spec') },
  { field: 'targeting.custom_audiences[].id', where: ADSET, source: spec('Targeting', 'custom_audiences') },
  { field: 'targeting.excluded_custom_audiences[].id', where: ADSET, source: spec('Targeting', 'excluded_custom_audiences') },
  ...['publisher_platforms', 'facebook_positions', 'instagram_positions', 'audience_network_positions', 'messenger_positions'].map((f) => ({
    field: `targeting.${f}`,
    where: ADSET,
    source: `${spec('Targeting', f)}; placements removed by version in ./versions.ts (v24.0 video_feeds, v26.0 explore, messenger story)`,
  })),
  {
    field: 'targeting.targeting_automation.advantage_audience',
    where: ADSET,
    source: `${spec('Targeting', 'targeting_automation')}; Marketing API v23.0 changelog; blog "Changes to Advantage+ audience behaviours" (2025-06-13): said explicitly, 0 or 1`,
  },

  // Ads.
  { field: 'adset_id', where: ['POST /act_{id}/ads'], source: spec('AdAccount ads', 'adset_id') },
  { field: 'creative.creative_id', where: AD, source: spec('Ad', 'creative') },

  // Creatives (standalone, or inline in an ad).
  { field: 'name', where: ['POST /act_{id}/ads > creative', 'POST /{id} > creative'], source: spec('AdCreative', 'name') },
  { field: 'url_tags', where: CREATIVE, source: spec('AdCreative', 'url_tags') },
  { field: 'object_story_id', where: CREATIVE, source: spec('AdCreative', 'object_story_id') },
  story('page_id', `${spec('AdCreativeObjectStorySpec', 'page_id')}; object story spec reference`),
  story(
    'instagram_user_id',
    `${spec('AdCreativeObjectStorySpec', 'instagram_user_id')}; Marketing API v22.0 changelog: instagram_actor_id deprecated, "migrate your API calls to use the new instagram_user_id field"`,
  ),
  ...[
    'link',
    'caption',
    'message',
    'name',
    'description',
    'image_hash',
    'call_to_action.type',
    'call_to_action.value.link',
    'call_to_action.value.lead_gen_form_id',
  ].map(linkData),
  ...[
    'video_id',
    'message',
    'title',
    'link_description',
    'image_url',
    'image_hash',
    'call_to_action.type',
    'call_to_action.value.link',
    'call_to_action.value.lead_gen_form_id',
  ].map(videoData),
  {
    field: 'contextual_multi_ads.enroll_status',
    where: CREATIVE,
    source: `${spec('AdCreative', 'contextual_multi_ads')}; Meta "Multi-advertiser ads": ads created since 2024-08-19 without it are opted in`,
  },
  ...['image_template', 'image_touchups', 'text_optimizations', 'inline_comment', 'video_auto_crop'].map((f) => creativeFeature(f)),
  creativeFeature('product_extensions', {
    source: `${spec('AdCreative', 'degrees_of_freedom_spec')}; Meta "Product Extensions for Advantage+ Creative": taken by every version, "beginning with v20.0, all ad creation requests that are eligible for product extensions must specify" enroll_status; blog "Introducing Graph API v27.0 and Marketing API v27.0" (2026-11-04): product showcase on by default "Starting in v27.0" (the service sends its opt-out from v27.0); ${NODE_SDK_27}`,
  }),
  creativeFeature('standard_enhancements', {
    source: `${STANDARD_ENHANCEMENTS_PAGE}; ${V22_BLOG}; refused as error 100 subcode 3858504 (third-party reports)`,
    removed: 'v22.0',
  }),

  // Creative files.
  { field: 'bytes', where: ['POST /act_{id}/adimages'], source: `${spec('AdAccount adimages', 'bytes')}; ad images reference` },
  { field: 'source', where: ['POST /act_{id}/advideos'], source: `${spec('AdAccount advideos', 'source')}; ad videos reference` },

  // Reads.
  {
    field: 'fields',
    where: [
      'GET /{id}',
      'GET /',
      'GET /act_{id}',
      'GET /act_{id}/campaigns',
      'GET /act_{id}/adlabels',
      'GET /act_{id}/campaignsbylabels',
      'GET /act_{id}/adsetsbylabels',
      'GET /act_{id}/adsbylabels',
      'GET /act_{id}/adspixels',
      'GET /act_{id}/promote_pages',
      'GET /act_{id}/instagram_accounts',
      'GET /act_{id}/customaudiences',
      'GET /act_{id}/insights',
      'GET /{id}/leadgen_forms',
    ],
    source: 'Graph API "Using the Graph API": fields; codegen api_specs (each node\'s fields)',
  },
  {
    field: 'limit',
    where: PAGED_READS,
    source: 'Graph API "Paging" (cursor-based pagination: limit, after)',
  },
  {
    field: 'after',
    where: PAGED_READS,
    source: 'Graph API "Paging": after',
  },
  { field: 'ids', where: ['GET /'], source: 'Graph API "Multiple ID read requests": ids' },
  ...['filtering[].field', 'filtering[].operator', 'filtering[].value'].map((field) => ({
    field,
    where: ['GET /act_{id}/campaigns', 'GET /act_{id}/insights'],
    source: `${spec('AdAccount campaigns, insights', 'filtering')}`,
  })),
  { field: 'summary', where: ['GET /act_{id}/campaigns'], source: spec('AdAccount campaigns', 'summary') },
  { field: 'effective_status', where: ['GET /act_{id}/campaigns'], source: spec('AdAccount campaigns', 'effective_status') },
  ...['ad_label_ids', 'operator'].map((field) => ({
    field,
    where: ['GET /act_{id}/campaignsbylabels', 'GET /act_{id}/adsetsbylabels', 'GET /act_{id}/adsbylabels'],
    source: spec('AdAccount campaignsbylabels, adsetsbylabels, adsbylabels', field),
  })),
  {
    field: 'bid_amount',
    where: ['GET /act_{id}/minimum_budgets'],
    source: `${spec('AdAccount minimum_budgets', 'bid_amount')} ("the bid_amount if use manual bid")`,
  },
  ...['level', 'breakdowns', 'time_increment', 'time_range.since', 'time_range.until', 'date_preset'].map((field) => ({
    field,
    where: ['GET /act_{id}/insights'],
    source: `${spec('AdAccount insights', field.split('.')[0])}; Insights API reference`,
  })),
  ...['type', 'q', 'class', 'location_types', 'cities', 'country_code', 'locale'].map((field) => ({
    field,
    where: ['GET /search'],
    source: `Targeting search reference (adgeolocation, adinterest): ${field} (not in api_specs)`,
  })),
];

/**
 * Parameters the Meta adapter never sends, with why (the ledger lists none of them, so the ledger test
 * refuses them too; tests also assert that no recorded request carries one).
 */
export const META_NEVER_SENT: readonly LedgerEntry[] = [
  {
    field: 'smart_promotion_type',
    where: CAMPAIGN,
    source:
      'Meta "Advantage+ Campaign Experience for Sales, App, and Leads": "Beginning with v25.0, you will no longer be able to use the Advantage+ shopping campaign (ASC) API with the smart_promotion_type=AUTOMATED_SHOPPING_ADS field ... or the Advantage+ app campaign API with the smart_promotion_type=SMART_APP_PROMOTION field"; legacy Advantage+ shopping and app campaigns refused in every version since 2026-05-19 (live-platforms.md, "Automated campaigns"). An Advantage+ campaign is made of its levers instead (./advantage.ts)',
  },
];
