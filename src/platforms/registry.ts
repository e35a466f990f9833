// Chooses the adapter for an ad account (sandbox or live, per PLATFORM_MODE) and maps platform
// failures to the contract's error codes.

import type { Knex } from 'knex';
import { ServiceError, notFound } from '../errors.js';
import { decryptSecret } from '../auth/encryption.js';
import { PlatformError, type AdAccount, type PlatformAdapter, type PlatformName, type RegionalIdentities } from './port.js';
import { SandboxPlatform } from './sandbox/adapter.js';
import { APP_IN_DEVELOPMENT, DEPRECATED_VERSION_CODE, LEAD_TERMS_NOT_ACCEPTED, LEAD_TERMS_URL } from './meta/errors.js';
import type { PlatformMode } from '../config.js';
import type { IdentityType } from './platform-name.js';
import { metered } from './metered.js';
import { DEFAULT_GRAPH_VERSION } from './meta/versions.js';
import { tiktokFloors, type Floor } from './tiktok/budgets.js';
import { parseFxRates, type FxRates } from '../money/fx-rates.js';

/** What the platforms' rules need of the configuration: the Graph version called (META_GRAPH_URL) and FX_RATES. */
export interface PlatformRulesConfig {
  graphVersion: string;
  fxRates: FxRates;
}

export interface BrandAdAccount extends AdAccount {
  name: string | null;
  active: boolean;
}

export type LiveAdapterFactory = (platform: PlatformName) => PlatformAdapter;

/**
 * Who an ad account's ads speak as (live-platforms.md), who an EU ad names, and what the platform
 * granted the account beyond its defaults (bootstrap.md): any may be changed, null clears it.
 */
export interface AdAccountIdentity {
  pageId: string | null;
  instagramUserId: string | null;
  identityId: string | null;
  identityType: IdentityType | null;
  dsaBeneficiary: string | null;
  dsaPayor: string | null;
  /** TikTok: the Business Center of a BC_AUTH_TT identity (identity_authorized_bc_id). */
  identityBcId: string | null;
  /** Allowlist-only platform features the account was granted (e.g. PLACEMENT_GLOBAL_APP_BUNDLE). */
  allowlisted: string[];
  /** Countries for which the advertiser made a declaration (earlier rounds; kept, no longer checked). */
  declaredCountries: string[];
  /** Meta: the verified beneficiary and payer identity ids per country that needs them (SG, TW); null when none. */
  regionalIdentities: RegionalIdentities | null;
  /** TikTok: whether the advertiser may use the Smart+ endpoints. */
  smartPlusAllowed: boolean;
}

/** A brand's ad account as stored (brands/store.ts keeps the table). */
export interface AdAccountRow extends AdAccountIdentity {
  platform: PlatformName;
  accountId: string;
  timezone: string;
  currency: string;
  /** The sealed access token used in live mode, if one is stored. */
  accessTokenEncrypted: string | null;
  name: string | null;
  active: boolean;
}

/**
 * Where the registry reads a brand's ad accounts: the brands store, handed over by the service's
 * wiring, so platforms/ never imports an area above it.
 */
export interface AdAccountReader {
  /** The brand's ad account `accountId`, or undefined when the brand has none such. */
  find(db: Knex | Knex.Transaction, brandId: number, accountId: string): Promise<AdAccountRow | undefined>;
  /** The brand's name (a TikTok landing-page ad's display name when the ad names none). */
  brandName(db: Knex | Knex.Transaction, brandId: number): Promise<string | null>;
}

export class Platforms {
  private readonly adapters = new Map<PlatformName, PlatformAdapter>();
  /** Ad-account rows by brand and id, kept for KEY_CACHE_MS like the brand directory. */
  private readonly rows = new Map<string, { row: AdAccountRow; brandName: string | null; at: number }>();

  constructor(
    readonly mode: PlatformMode,
    knex: Knex,
    private readonly now: () => number,
    live: LiveAdapterFactory | undefined,
    private readonly cacheMs: number,
    private readonly accounts: AdAccountReader,
    private readonly rules: PlatformRulesConfig = { graphVersion: DEFAULT_GRAPH_VERSION, fxRates: parseFxRates(undefined) },
  ) {
    for (const platform of ['meta', 'tiktok'] as const) {
      if (mode === 'sandbox') this.adapters.set(platform, metered(new SandboxPlatform(platform, knex, now)));
      else if (live) this.adapters.set(platform, metered(live(platform)));
    }
  }

  /** The adapter serving `platform`; 503 when live mode has none configured. */
  adapterFor(platform: PlatformName): PlatformAdapter {
    const adapter = this.adapters.get(platform);
    if (!adapter) throw new ServiceError('unavailable', `No ${platform} adapter is configured for PLATFORM_MODE=${this.mode}.`);
    return adapter;
  }

  /** The Graph version the service calls (META_GRAPH_URL): Meta's placements removed by then are refused at preview. */
  get graphVersion(): string {
    return this.rules.graphVersion;
  }

  /**
   * TikTok's minimum budgets (USD 20 an ad group, USD 50 a campaign, a day) in minor units of `currency`
   * at the FX_RATES rate, rounded up; null when FX_RATES has no rate for it.
   */
  tiktokMinimums(currency: string): { adSet: Floor | null; campaign: Floor | null } {
    return tiktokFloors(currency, this.rules.fxRates);
  }

  /** Forgets the cached row of the brand's ad account `accountId` (after it changed). */
  forget(brandId: number, accountId: string): void {
    this.rows.delete(`${brandId}:${accountId}`);
  }

  /** The brand's ad account `accountId`; 404 when it is not one of the brand's accounts. */
  async account(db: Knex | Knex.Transaction, brandId: number, accountId: string): Promise<BrandAdAccount> {
    const cacheKey = `${brandId}:${accountId}`;
    const hit = this.rows.get(cacheKey);
    let row = hit && this.now() - hit.at < this.cacheMs ? hit.row : undefined;
    let brandName = hit?.brandName ?? null;
    if (!row) {
      row = await this.accounts.find(db, brandId, accountId);
      if (!row) throw notFound(`Ad account ${accountId} of brand ${brandId}`);
      // A TikTok landing-page ad shows the brand's name when it names no display name.
      brandName = row.platform === 'tiktok' ? await this.accounts.brandName(db, brandId) : null;
      if (this.rows.size > 10_000) this.rows.clear();
      this.rows.set(cacheKey, { row, brandName, at: this.now() });
    }
    return {
      brandName,
      platform: row.platform,
      accountId: row.accountId,
      timezone: row.timezone,
      currency: row.currency,
      accessToken: this.mode === 'live' && row.accessTokenEncrypted ? decryptSecret(row.accessTokenEncrypted) : null,
      name: row.name,
      active: row.active,
      pageId: row.pageId,
      instagramUserId: row.instagramUserId,
      identityId: row.identityId,
      identityType: row.identityType,
      dsaBeneficiary: row.dsaBeneficiary,
      dsaPayor: row.dsaPayor,
      identityBcId: row.identityBcId,
      allowlisted: row.allowlisted,
      declaredCountries: row.declaredCountries,
      regionalIdentities: row.regionalIdentities,
      smartPlusAllowed: row.smartPlusAllowed,
    };
  }
}

/** The contract's error for a platform failure. */
export function serviceErrorOf(err: PlatformError): ServiceError {
  const platformDetails = { platformError: err.kind, ...(err.extra.platformCode !== undefined ? { platformCode: err.extra.platformCode } : {}) };
  if (err.extra.platformCode === DEPRECATED_VERSION_CODE) {
    // Graph refuses a version past its end: the operator moves META_GRAPH_URL to a current version.
    return new ServiceError(
      'unavailable',
      `Meta no longer serves the Graph API version this service calls; set META_GRAPH_URL to a current version (${err.message})`,
      platformDetails,
    );
  }
  const account = err.extra.accountId ? `ad account ${err.extra.accountId}` : 'the ad account';
  if (err.extra.platformCode === 100 && err.extra.platformSubcode === APP_IN_DEVELOPMENT)
    return new ServiceError(
      'unprocessable',
      `Meta refused the request for ${account}: the Meta app this service calls with is in development mode (error 100, subcode ${APP_IN_DEVELOPMENT}). An admin of the app switches App Mode to Live in the Meta App Dashboard, then retry. Nothing was created by this call.`,
      { ...platformDetails, platformSubcode: APP_IN_DEVELOPMENT, accountId: err.extra.accountId ?? null },
    );
  if (err.extra.platformCode === 100 && err.extra.platformSubcode === LEAD_TERMS_NOT_ACCEPTED)
    return new ServiceError(
      'unprocessable',
      `Meta refused a lead ad of ${account}: Facebook Page ${err.extra.pageId ?? "(the lead form's Page)"} has not accepted Meta's lead ads terms (error 100, subcode ${LEAD_TERMS_NOT_ACCEPTED}). An admin of the Page accepts them at ${LEAD_TERMS_URL}, then retry.`,
      { ...platformDetails, platformSubcode: LEAD_TERMS_NOT_ACCEPTED, accountId: err.extra.accountId ?? null, pageId: err.extra.pageId ?? null },
    );
  switch (err.kind) {
    case 'throttled': {
      const seconds = Math.max(1, Math.ceil((err.extra.retryAfterMs ?? 60_000) / 1000));
      return new ServiceError(
        'unavailable',
        `The ad platform is throttling this ad account; retry after ${seconds} seconds. Nothing was changed by this call.`,
        platformDetails,
        seconds,
      );
    }
    case 'transient':
      return new ServiceError('unavailable', 'The ad platform did not answer; retry with backoff.', platformDetails, 5);
    case 'authentication': {
      const id = err.extra.accountId;
      const details = { ...platformDetails, ...(id ? { accountId: id } : {}) };
      const fix = `set adAccounts[].accessToken for ${id ?? 'it'} in a bootstrap file and apply it with svc-server bootstrap, TOKEN_ENCRYPTION_KEY set (docs/platforms.md, "Tokens")`;
      if (err.extra.noToken)
        return new ServiceError('unprocessable', `Ad account ${id} has no access token, so nothing was sent to the ad platform: ${fix}.`, details);
      return new ServiceError(
        'unprocessable',
        `The ad platform refused the access token of ${id ? `ad account ${id}` : 'the ad account'} (${err.message}). Give it a new token: ${fix}, then retry.`,
        details,
      );
    }
    case 'invalid_request':
      return new ServiceError('unprocessable', `The ad platform refused the request: ${err.message}`, { ...platformDetails, field: err.extra.field ?? null });
    case 'not_found':
      return new ServiceError('not_found', `The ad platform has no such object: ${err.message}`, null);
    case 'capability_unsupported':
      return new ServiceError('capability_unsupported', err.message, platformDetails);
  }
}
