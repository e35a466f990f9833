// What each platform accepts as ad text: lengths, and emoji where the platform refuses them. The
// launch validation, the sandbox's refusals and the copy area's screen all hold texts to these.

import type { PlatformName } from './platform-name.js';

export interface CopyLimits {
  headlines: number;
  primaryTexts: number;
  descriptions: number;
  /** Whether the platform shows emoji in ad text. */
  emoji: boolean;
}

/** Meta: headline 255, primary text 2,200, description 255. TikTok: one ad text of 1 to 100 characters, no emoji. */
export const COPY_LIMITS: Record<PlatformName, CopyLimits> = {
  meta: { headlines: 255, primaryTexts: 2200, descriptions: 255, emoji: true },
  tiktok: { headlines: 100, primaryTexts: 100, descriptions: 100, emoji: false },
};

const EMOJI = /[\p{Extended_Pictographic}\p{Regional_Indicator}\u{FE0F}\u{20E3}]/u;

/** Length in characters as the platforms count them (code points). */
export function textLength(text: string): number {
  return [...text].length;
}

export function hasEmoji(text: string): boolean {
  return EMOJI.test(text);
}
