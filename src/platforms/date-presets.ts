// The overview's date presets, resolved in the ad account's timezone. Every last_Nd preset ends
// yesterday and leaves today out; `maximum` is the lifetime window. Automations also ask for other
// last_Nd windows (last_3d), which resolve by the same rule.

import { addDays, localDate, weekday } from '../time/zones.js';
import type { DateWindow } from './port.js';

export const DATE_PRESETS = [
  'today',
  'yesterday',
  'this_week_sun_today',
  'last_7d',
  'last_14d',
  'last_28d',
  'last_30d',
  'last_90d',
  'this_month',
  'last_month',
  'maximum',
] as const;
export type DatePreset = (typeof DATE_PRESETS)[number];

/**
 * The window of `preset` at instant `now` in `timeZone`. `lifetimeSince` is the first day of the
 * `maximum` window (the earliest launch); it defaults to today.
 */
export function resolveDatePreset(preset: DatePreset | `last_${number}d`, now: number, timeZone: string, lifetimeSince?: string): DateWindow {
  const today = localDate(now, timeZone);
  const yesterday = addDays(today, -1);
  const lastN = /^last_(\d+)d$/.exec(preset);
  if (lastN) return { since: addDays(today, -Number(lastN[1])), until: yesterday };
  switch (preset) {
    case 'today':
      return { since: today, until: today };
    case 'yesterday':
      return { since: yesterday, until: yesterday };
    case 'this_week_sun_today':
      return { since: addDays(today, -weekday(today)), until: today };
    case 'this_month':
      return { since: `${today.slice(0, 8)}01`, until: today };
    case 'last_month': {
      const firstThisMonth = `${today.slice(0, 8)}01`;
      const lastDay = addDays(firstThisMonth, -1);
      return { since: `${lastDay.slice(0, 8)}01`, until: lastDay };
    }
    case 'maximum':
      return { since: lifetimeSince && lifetimeSince < today ? lifetimeSince : today, until: today };
    default:
      throw new Error(`unknown date preset ${preset as string}`);
  }
}
