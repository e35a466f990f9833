// The placements an ad set's `placements.positions` may name, per platform, as live-platforms.md
// lists them: Meta's as `<publisher_platform>:<position>` (sent as publisher_platforms plus
// <platform>_positions), TikTok's by its own names (sent as placement_type PLACEMENT_TYPE_NORMAL with
// placements). A position of the other platform, or an unknown one, fails launch validation; the Meta
// positions Meta removed fail it from their version on (meta/versions.ts, REMOVED_POSITIONS).

import type { PlatformName } from './port.js';

/** Each platform's positions. */
export const PLACEMENT_POSITIONS: Record<PlatformName, readonly string[]> = {
  meta: [
    'facebook:feed',
    'facebook:story',
    'facebook:marketplace',
    'facebook:video_feeds',
    'facebook:facebook_reels',
    'facebook:search',
    'facebook:instream_video',
    'instagram:stream',
    'instagram:story',
    'instagram:reels',
    'instagram:explore',
    'audience_network:classic',
    'audience_network:rewarded_video',
    'messenger:messenger_home',
    'messenger:story',
  ],
  tiktok: ['PLACEMENT_TIKTOK', 'PLACEMENT_PANGLE', 'PLACEMENT_GLOBAL_APP_BUNDLE'],
};
