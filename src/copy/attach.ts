// What attaching a copy record does to an ad: its first headline, primary text and description
// become the ad's, unless the caller names its own.

import type { CopyRecord } from './store.js';

/** The ad properties a copy sets, overridden by any of them in `own`. */
export function adTextsFromCopy(copy: CopyRecord, own: Record<string, unknown> = {}): Record<string, unknown> {
  const texts: Record<string, unknown> = {
    headline: copy.headlines[0],
    primaryText: copy.primaryTexts[0],
    description: copy.descriptions[0],
    copyGenerationId: copy.copyGenerationId,
  };
  for (const key of ['headline', 'primaryText', 'description'] as const) if (own[key] !== undefined) texts[key] = own[key];
  return texts;
}
