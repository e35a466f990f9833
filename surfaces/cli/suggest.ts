// "Did you mean": the known name nearest to a mistyped one, for the command lines' unknown-command
// messages (svc, svc-server).

/** Edit distance (insertions, deletions, substitutions) between two short names. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length];
}

/**
 * The candidate nearest to `typed`, when it is near enough to be what was meant: within a third of
 * the name's length in edits (at least 2), or the one candidate that starts with what was typed.
 */
export function nearestName(typed: string, candidates: Iterable<string>): string | null {
  const wanted = typed.toLowerCase();
  let best: { name: string; d: number } | null = null;
  const prefixed: string[] = [];
  for (const name of candidates) {
    if (name.startsWith(wanted)) prefixed.push(name);
    const d = distance(wanted, name);
    if (!best || d < best.d) best = { name, d };
  }
  if (best && best.d <= Math.max(2, Math.floor(wanted.length / 3))) return best.name;
  return prefixed.length === 1 ? prefixed[0] : null;
}

/** ` Did you mean "x"?` for an unknown name, or the empty string when nothing is near. */
export function didYouMean(typed: string, candidates: Iterable<string>): string {
  const near = nearestName(typed, candidates);
  return near ? ` Did you mean "${near}"?` : '';
}
