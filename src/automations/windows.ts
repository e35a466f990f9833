// Rule windows resolved in the ad account's time zone, through the overview's date presets: every
// last_Nd window ends yesterday and leaves today out; lifetime runs from the first day any of the
// account's live objects existed.

import { resolveDatePreset } from '../platforms/date-presets.js';
import type { DateWindow } from '../platforms/port.js';

export const WINDOWS = ['today', 'yesterday', 'last_3d', 'last_7d', 'last_14d', 'last_30d', 'lifetime'] as const;
export type RuleWindow = (typeof WINDOWS)[number];

/** The dates of `window` at `now` in `timeZone`; `lifetimeSince` is the first local date of the lifetime window. */
export function resolveWindow(window: RuleWindow, now: number, timeZone: string, lifetimeSince?: string): DateWindow {
  return resolveDatePreset(window === 'lifetime' ? 'maximum' : window, now, timeZone, lifetimeSince);
}
