// The ad platforms an ad account can be on, and the identities a TikTok account speaks as: src/platforms/
// serves each, and a brand's ad accounts (src/brands/) name them.

/** An ad platform the service launches on. */
export type PlatformName = 'meta' | 'tiktok';

/** TikTok identity types an ad may speak as (an ad account's `identityType`). */
export type IdentityType = 'CUSTOMIZED_USER' | 'TT_USER' | 'BC_AUTH_TT' | 'AUTH_CODE';
