/**
 * "Did you mean": the choice of a closed set nearest to what someone typed, by edit distance (a swap of two
 * neighbouring letters counts as one edit). Far-off input gets no suggestion rather than a wrong one.
 */
export function closest(typed: string, choices: readonly string[]): string | undefined {
  const wanted = typed.trim().toLowerCase();
  if (!wanted) return undefined;
  let best: { choice: string; distance: number } | undefined;
  for (const choice of choices) {
    const name = choice.toLowerCase();
    // A dotted name (github.new_issue) may be typed without its prefix.
    const bare = name.includes('.') && !wanted.includes('.') ? name.slice(name.indexOf('.') + 1) : undefined;
    // A name cut short or run on (warn for warning, github_get_repo) is near whatever its length.
    const prefix = wanted.length >= 3 && (name.startsWith(wanted) || wanted.startsWith(name)) ? 1.5 : Infinity;
    const distance = Math.min(editDistance(wanted, name), bare === undefined ? Infinity : editDistance(wanted, bare) + 0.5, prefix);
    if (!best || distance < best.distance) best = { choice, distance };
  }
  if (!best) return undefined;
  const allowed = Math.min(3, Math.max(1, Math.floor(wanted.length / 3)));
  return best.distance <= allowed + 0.5 ? best.choice : undefined;
}

/** The sentence errors end with: ` Did you mean "x"?`, or nothing when no choice is near. */
export function didYouMean(typed: string, choices: readonly string[]): string {
  const near = closest(typed, choices);
  return near === undefined ? '' : ` Did you mean "${near}"?`;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}
