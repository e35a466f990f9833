// The screen every generated text passes before it is stored: what each platform accepts as ad text
// (platforms/text-limits.ts) and the brand's words to avoid.

import type { CopyField, CopyPlatform, CopyTexts } from './port.js';
import { COPY_LIMITS, hasEmoji, textLength } from '../platforms/text-limits.js';

/** The avoided word a text contains (case-insensitive), if any. */
export function avoidedWordIn(text: string, wordsToAvoid: string[]): string | null {
  const lower = text.toLowerCase();
  return wordsToAvoid.find((w) => w.trim() && lower.includes(w.trim().toLowerCase())) ?? null;
}

/** Why `text` may not be stored as a `field` text on `platform`, or null when it may. */
export function textProblem(text: string, field: CopyField, platform: CopyPlatform, wordsToAvoid: string[]): string | null {
  const limits = COPY_LIMITS[platform];
  const length = textLength(text);
  if (length < 1) return 'is empty';
  if (length > limits[field]) return `is ${length} characters; ${platform} allows at most ${limits[field]}`;
  if (!limits.emoji && hasEmoji(text)) return `contains emoji, which ${platform} refuses`;
  const word = avoidedWordIn(text, wordsToAvoid);
  if (word) return `contains "${word}", one of the brand's words to avoid`;
  return null;
}

export interface Screened {
  kept: CopyTexts;
  dropped: Array<{ field: CopyField; text: string; reason: string }>;
}

/** Keeps the texts that fit (trimmed, each once, at most `count` per field) and lists the others with the reason. */
export function screenTexts(texts: CopyTexts, platform: CopyPlatform, wordsToAvoid: string[], count: number): Screened {
  const kept: CopyTexts = { headlines: [], primaryTexts: [], descriptions: [] };
  const dropped: Screened['dropped'] = [];
  for (const field of ['headlines', 'primaryTexts', 'descriptions'] as const) {
    for (const raw of texts[field]) {
      const text = raw.trim();
      const reason = textProblem(text, field, platform, wordsToAvoid);
      if (reason) dropped.push({ field, text: raw.slice(0, 300), reason });
      else if (!kept[field].includes(text) && kept[field].length < count) kept[field].push(text);
    }
  }
  return { kept, dropped };
}
