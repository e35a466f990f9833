// The next time of the simplest cron schedules without cron-parser: minute and hour each `*`, `*/n`
// or a number, every day of every month (the built-in kinds' schedules, e.g. `17 3 * * *` and
// `*/10 * * * *`), in UTC. Anything else answers null and goes to cron-parser, which loads luxon and
// its time zone data (20–60 ms on a fresh start, when the recurring jobs get their first times).

const FIELD = /^(\*|\*\/([1-9]\d?)|(\d{1,2}))$/;

/** A test of one field's value, or null when the field is not one of the simple forms (or out of `max`). */
function fieldTest(field: string, max: number): ((v: number) => boolean) | null {
  const m = FIELD.exec(field);
  if (!m) return null;
  if (m[1] === '*') return () => true;
  if (m[2] !== undefined) {
    const step = Number(m[2]);
    return step <= max ? (v) => v % step === 0 : null;
  }
  const at = Number(m[3]);
  return at <= max ? (v) => v === at : null;
}

/** The first minute strictly after `after` that `cron` names (UTC), or null when `cron` is not a simple one. */
export function nextSimpleCronTime(cron: string, after: number): number | null {
  const fields = cron.trim().split(/\s+/);
  if (fields.length !== 5 || fields.slice(2).some((f) => f !== '*')) return null;
  const minute = fieldTest(fields[0], 59);
  const hour = fieldTest(fields[1], 23);
  if (!minute || !hour) return null;
  // Every simple schedule fires at least once a day: two days of minutes always find it.
  for (let t = Math.floor(after / 60_000) * 60_000 + 60_000, n = 0; n < 2 * 1440; t += 60_000, n++) {
    const d = new Date(t);
    if (minute(d.getUTCMinutes()) && hour(d.getUTCHours())) return t;
  }
  return null;
}
