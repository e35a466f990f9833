// The ad platforms an ad account can be on: a brand's ad accounts name one, src/platforms/ serves each.

/** An ad platform the service launches on. */
export type PlatformName = 'meta' | 'tiktok';
