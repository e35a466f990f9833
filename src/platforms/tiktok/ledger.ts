// The TikTok ledger: every parameter the TikTok adapter sends to the Business API, where it goes and
// what TikTok's generated SDK (tiktok/tiktok-business-api-sdk @f809c39, python_sdk/docs/*.md and
// yml_files/*.yml) and portal pages say of it. TikTok serves one version (v1.3), so no entry is bounded
// by version. The ledger test (test/platforms/ledger.test.ts) records every request of a publish and its
// variations against the fake and fails on a parameter missing here (docs/platforms.md, "What we send,
// version by version").

import type { LedgerEntry } from '../ledger.js';

/** The Business API version the adapter calls (its base path /open_api/v1.3). */
export const TIKTOK_API_VERSION = 'v1.3';

/** The SDK's model of an endpoint's body or query. */
const sdk = (model: string, field: string): string => `tiktok-business-api-sdk @f809c39 python_sdk/docs/${model}.md: ${field}`;

/** One endpoint's parameters, all from one SDK model, each with an optional note. */
function endpoint(where: string, model: string, fields: Array<string | [string, string]>): LedgerEntry[] {
  return fields.map((f) => {
    const [field, note] = typeof f === 'string' ? [f, ''] : f;
    return { field, where: [where], source: `${sdk(model, field.split(/[.[]/)[0])}${note ? `; ${note}` : ''}` };
  });
}

const PAGED: Array<string | [string, string]> = ['advertiser_id', 'page', 'page_size'];

/** A Smart+ yml file of the SDK, where an endpoint's parameters are described (live-platforms.md, "Automated campaigns"). */
const yml = (file: string, field: string): string => `tiktok-business-api-sdk @f809c39 yml_files/${file}.yml: ${field}`;

/** One Smart+ endpoint's parameters, all from one yml file, each with an optional note. */
function smartEndpoint(where: string, file: string, fields: Array<string | [string, string]>): LedgerEntry[] {
  return fields.map((f) => {
    const [field, note] = typeof f === 'string' ? [f, ''] : f;
    return { field, where: [where], source: `${yml(file, field)}${note ? `; ${note}` : ''}` };
  });
}

/** A Smart+ get's query (smart_plus_*_get.yml): paging and the filters the adapter uses. */
const SMART_GET = (filters: string[]): Array<string | [string, string]> => [
  'advertiser_id',
  'page',
  'page_size',
  ...filters.map((f) => `filtering.${f}`),
  'filtering.primary_status',
];

/** What the TikTok adapter sends, endpoint by endpoint. */
export const TIKTOK_LEDGER: readonly LedgerEntry[] = [
  ...endpoint('POST /campaign/create/', 'CampaignCreateBody', [
    'advertiser_id',
    ['campaign_name', '"Character limit is 512 and cannot contain emoji"'],
    'objective_type',
    ['operation_status', 'allowlist-only; "Default value: ENABLE"'],
    ['budget_optimize_on', 'said explicitly: its documented default differs between the campaign and ad group pages'],
    ['budget_mode', 'BUDGET_MODE_DAY under budget optimization, else BUDGET_MODE_INFINITE'],
    'budget',
    'optimization_goal',
    ['special_industries', '"the system will adjust your ad group target options"'],
    ['request_id', 'idempotency key'],
  ]),
  ...endpoint('POST /campaign/update/', 'CampaignUpdateBody', [
    'advertiser_id',
    'campaign_id',
    ['budget', 'budget_mode is not taken by the update'],
    'campaign_name',
  ]),
  ...endpoint('POST /campaign/status/update/', 'CampaignStatusUpdateBody', ['advertiser_id', 'campaign_ids', 'operation_status']),
  ...endpoint('GET /campaign/get/', 'CampaignApi', [
    ...PAGED,
    'fields',
    'filtering.campaign_ids',
    'filtering.campaign_name',
    'filtering.primary_status',
    'filtering.secondary_status',
  ]),
  ...endpoint('POST /adgroup/create/', 'AdgroupCreateBody', [
    'advertiser_id',
    'campaign_id',
    ['adgroup_name', '"Character limit is 512 and cannot contain emoji"'],
    'operation_status',
    'placement_type',
    'placements',
    'pacing',
    'optimization_goal',
    ['optimization_event', 'TikTok events (yml_files/smart_plus_adgroup_create.yml optimization_event enum)'],
    'billing_event',
    'bid_type',
    ['bid_price', '"needs to be lower than budget set at the campaign level and ad group level"'],
    ['conversion_bid_price', '"Required when billing_event = OCPM and bid_type = BID_TYPE_CUSTOM"'],
    ['promotion_type', '"You need to specify the field when advertising objective ... is NOT set as REACH, VIDEO_VIEWS, or ENGAGEMENT"'],
    'schedule_type',
    'schedule_start_time',
    'schedule_end_time',
    'budget_mode',
    ['budget', 'the floor per currency: "Currency - Daily budget value range" (./budgets.ts)'],
    ['location_ids', '"available locations ... based on your placement and objective"'],
    ['age_groups', "TikTok's buckets"],
    'gender',
    'audience_ids',
    'excluded_audience_ids',
    'pixel_id',
    ['frequency', '"1 <= frequency <= frequency_schedule * 3"'],
    ['frequency_schedule', '"1 <= frequency_schedule <= 7"'],
    ['request_id', 'idempotency key'],
  ]),
  ...endpoint('POST /adgroup/update/', 'AdgroupUpdateBody', [
    'advertiser_id',
    'adgroup_id',
    'adgroup_name',
    ['budget', 'budget_mode is not taken by the update'],
  ]),
  ...endpoint('POST /adgroup/status/update/', 'AdgroupStatusUpdateBody', ['advertiser_id', 'adgroup_ids', 'operation_status']),
  ...endpoint('GET /adgroup/get/', 'AdgroupApi', [...PAGED, 'fields', 'filtering.adgroup_ids', 'filtering.campaign_ids', 'filtering.primary_status']),
  ...endpoint('POST /ad/create/', 'AdcreateCreatives', [
    'advertiser_id',
    'adgroup_id',
    ['creatives[].ad_name', '"Character limit is 512 and cannot contain emoji"'],
    'creatives[].operation_status',
    ['creatives[].ad_text', '"Each word in Chinese or Japanese counts as two characters"'],
    ['creatives[].call_to_action', '"For TikTok ads, either this field or call_to_action_id must be specified"'],
    'creatives[].landing_page_url',
    ['creatives[].display_name', '"1-40 English characters, or 1-20 Chinese/Japanese/Korean characters"'],
    'creatives[].identity_id',
    'creatives[].identity_type',
    ['creatives[].identity_authorized_bc_id', '"Required when identity_type is BC_AUTH_TT"'],
    ['creatives[].ad_format', '"For in-feed ads on TikTok, set this field to SINGLE_VIDEO"'],
    'creatives[].image_ids',
    'creatives[].video_id',
  ]),
  ...endpoint('POST /ad/update/', 'AdUpdateBody', ['advertiser_id', 'adgroup_id', 'creatives[].ad_id', 'creatives[].ad_name']),
  ...endpoint('POST /ad/status/update/', 'AdStatusUpdateBody', ['advertiser_id', 'ad_ids', 'operation_status']),
  ...endpoint('GET /ad/get/', 'AdApi', [...PAGED, 'fields', 'filtering.ad_ids', 'filtering.adgroup_ids', 'filtering.primary_status']),
  ...endpoint('POST /file/image/ad/upload/', 'FileImageAdUploadBody', ['advertiser_id', 'upload_type', 'image_file', 'image_signature', 'image_url']),
  ...endpoint('POST /file/video/ad/upload/', 'FileVideoAdUploadBody', ['advertiser_id', 'upload_type', 'video_file', 'video_signature']),
  ...endpoint('GET /file/video/ad/info/', 'FileApi', ['advertiser_id', 'video_ids']),
  ...endpoint('GET /file/image/ad/info/', 'FileApi', ['advertiser_id', 'image_ids']),
  ...endpoint('GET /tool/region/', 'ToolApi', ['advertiser_id', 'placements', 'objective_type']),
  ...endpoint('GET /tool/interest_category/', 'ToolApi', ['advertiser_id']),
  ...endpoint('GET /tool/url_validate/', 'ToolApi', ['advertiser_id', 'url']),
  ...endpoint('GET /identity/get/', 'IdentityApi', [...PAGED, 'identity_type']),
  ...endpoint('GET /dmp/custom_audience/list/', 'AudienceApi', PAGED),
  ...endpoint('GET /pixel/list/', 'PixelApi', [...PAGED.slice(0, 2), ['page_size', 'yml_files/pixel_list.yml: at most 20']]),
  // Upgraded Smart+ (./smart-plus.ts): what Smart+ decides itself (frequency, display name) is never sent.
  ...smartEndpoint('POST /smart_plus/campaign/create/', 'smart_plus_campaign_create', [
    'advertiser_id',
    'campaign_name',
    ['objective_type', 'valid keys WEB_CONVERSIONS, LEAD_GENERATION, APP_PROMOTION'],
    ['operation_status', 'DISABLE at create; finishPublish enables it'],
    'budget_optimize_on',
    ['budget_mode', 'valid keys BUDGET_MODE_DYNAMIC_DAILY_BUDGET and BUDGET_MODE_TOTAL (BUDGET_MODE_DAY is not)'],
    'budget',
    'special_industries',
    ['request_id', 'required; read as int64 (x-open-convert), so digits derived from the node id and attempt'],
  ]),
  ...smartEndpoint('POST /smart_plus/campaign/update/', 'smart_plus_campaign_update', ['advertiser_id', 'campaign_id', 'campaign_name', 'budget']),
  ...smartEndpoint('POST /smart_plus/campaign/status/update/', 'smart_plus_campaign_status_update', [
    'advertiser_id',
    ['campaign_ids', 'maxItems 20'],
    'operation_status',
  ]),
  ...smartEndpoint('GET /smart_plus/campaign/get/', 'smart_plus_campaign_get', SMART_GET(['campaign_ids'])),
  ...smartEndpoint('POST /smart_plus/adgroup/create/', 'smart_plus_adgroup_create', [
    'advertiser_id',
    'campaign_id',
    'adgroup_name',
    'operation_status',
    ['optimization_goal', 'required'],
    ['billing_event', 'required'],
    ['promotion_type', 'required'],
    ['schedule_type', 'required'],
    ['schedule_start_time', 'required; "YYYY-MM-DD HH:MM:SS" (datetime_to_timestamp)'],
    'schedule_end_time',
    'bid_type',
    'bid_price',
    'conversion_bid_price',
    'budget_mode',
    'budget',
    ['placement_type', 'sent only when the ad set names its placements (else Smart+ places the ads)'],
    'placements',
    'pixel_id',
    'optimization_event',
    ['targeting_spec.location_ids', 'targeting_spec is required'],
    'targeting_spec.age_groups',
    'targeting_spec.gender',
    'targeting_spec.interest_category_ids',
    'targeting_spec.languages',
    'targeting_spec.audience_ids',
    'targeting_spec.excluded_audience_ids',
    ['request_id', 'required; read as int64 (x-open-convert)'],
  ]),
  ...smartEndpoint('POST /smart_plus/adgroup/update/', 'smart_plus_adgroup_update', ['advertiser_id', 'adgroup_id', 'adgroup_name', 'budget']),
  ...smartEndpoint('POST /smart_plus/adgroup/status/update/', 'smart_plus_adgroup_status_update', [
    'advertiser_id',
    ['adgroup_ids', 'maxItems 20'],
    'operation_status',
  ]),
  ...smartEndpoint('GET /smart_plus/adgroup/get/', 'smart_plus_adgroup_get', SMART_GET(['adgroup_ids', 'campaign_ids'])),
  ...smartEndpoint('POST /smart_plus/ad/create/', 'smart_plus_ad_create', [
    'advertiser_id',
    'adgroup_id',
    'ad_name',
    ['operation_status', 'default ENABLE; sent DISABLE, finishPublish enables it'],
    ['creative_list[].creative_info.ad_format', 'SINGLE_VIDEO (valid keys CAROUSEL_ADS, CATALOG_CAROUSEL, SINGLE_VIDEO: no single image)'],
    'creative_list[].creative_info.video_info.video_id',
    'creative_list[].creative_info.identity_id',
    'creative_list[].creative_info.identity_type',
    'creative_list[].creative_info.identity_authorized_bc_id',
    'ad_text_list[].ad_text',
    'call_to_action_list[].call_to_action',
    ['landing_page_url_list[].landing_page_url', 'sub3=__CAMPAIGN_ID__ carried in as on the classic ads'],
  ]),
  ...smartEndpoint('POST /smart_plus/ad/update/', 'smart_plus_ad_update', [
    'advertiser_id',
    'smart_plus_ad_id',
    'ad_name',
    'ad_text_list[].ad_text',
    'call_to_action_list[].call_to_action',
    'landing_page_url_list[].landing_page_url',
  ]),
  ...smartEndpoint('POST /smart_plus/ad/status/update/', 'smart_plus_ad_status_update', [
    'advertiser_id',
    ['smart_plus_ad_ids', 'maxItems 20'],
    'operation_status',
  ]),
  ...smartEndpoint('GET /smart_plus/ad/get/', 'smart_plus_ad_get', [
    ...SMART_GET(['smart_plus_ad_ids', 'adgroup_ids']).filter((f) => f !== 'page_size'),
    ['page_size', 'at most 100 (maximum in the yml)'],
  ]),
  ...endpoint('GET /report/integrated/get/', 'ReportingApi', [
    ...PAGED,
    'report_type',
    'data_level',
    'dimensions',
    'metrics',
    'start_date',
    'end_date',
    'filtering[].field_name',
    'filtering[].filter_type',
    'filtering[].filter_value',
  ]),
];
