// The screen every generated text passes before it is stored: the text rule of the ad field it
// fills (a headline is one line; primary text and a description may hold line feeds), what each
// platform accepts as ad text, counted as the platform counts it (platforms/text-limits.ts, TikTok's
// double-width rule), and the brand's words to avoid.

import type { CopyField, CopyPlatform, CopyTexts } from './port.js';
import { COPY_LIMITS, hasEmoji, textLength } from '../platforms/text-limits.js';
import { tiktokLength } from '../platforms/tiktok/rules.js';
import { kindProblem, storedLines, textProblem as notText, type TextKind } from '../schemas/text.js';

/** The kind of text each copy field becomes on an ad, as the ad's own fields take it (schemas/resources/node-properties.json). */
const KINDS: Record<CopyField, TextKind> = { headlines: 'line', primaryTexts: 'multiline', descriptions: 'multiline' };

/** The avoided word a text contains (case-insensitive), if any. */
export function avoidedWordIn(text: string, wordsToAvoid: string[]): string | null {
  const lower = text.toLowerCase();
  return wordsToAvoid.find((w) => w.trim() && lower.includes(w.trim().toLowerCase())) ?? null;
}

/** Why `text` may not be stored as a `field` text on `platform`, or null when it may. */
export function textProblem(text: string, field: CopyField, platform: CopyPlatform, wordsToAvoid: string[]): string | null {
  const limits = COPY_LIMITS[platform];
  if (textLength(text) < 1) return 'is empty';
  const kind = notText(text) ?? kindProblem(text, KINDS[field]);
  if (kind) return kind;
  // TikTok counts a Chinese or Japanese character as two (AdcreateCreatives ad_text).
  const length = platform === 'tiktok' ? tiktokLength(text) : textLength(text);
  if (length > limits[field])
    return `is ${length} characters${platform === 'tiktok' ? ' as TikTok counts them (Chinese and Japanese characters count two)' : ''}; ${platform} allows at most ${limits[field]}`;
  if (!limits.emoji && hasEmoji(text)) return `contains emoji, which ${platform} refuses`;
  const word = avoidedWordIn(text, wordsToAvoid);
  if (word) return `contains "${word}", one of the brand's words to avoid`;
  return null;
}

export interface Screened {
  kept: CopyTexts;
  dropped: Array<{ field: CopyField; text: string; reason: string }>;
}

/**
 * Keeps the texts that fit (trimmed, a CR LF of a multi-line field stored as a line feed, each once,
 * at most `count` per field) and lists the others with the reason.
 */
export function screenTexts(texts: CopyTexts, platform: CopyPlatform, wordsToAvoid: string[], count: number): Screened {
  const kept: CopyTexts = { headlines: [], primaryTexts: [], descriptions: [] };
  const dropped: Screened['dropped'] = [];
  for (const field of ['headlines', 'primaryTexts', 'descriptions'] as const) {
    for (const raw of texts[field]) {
      const text = KINDS[field] === 'multiline' ? storedLines(raw.trim()) : raw.trim();
      const reason = textProblem(text, field, platform, wordsToAvoid);
      if (reason) dropped.push({ field, text: raw.slice(0, 300), reason });
      else if (!kept[field].includes(text) && kept[field].length < count) kept[field].push(text);
    }
  }
  return { kept, dropped };
}
