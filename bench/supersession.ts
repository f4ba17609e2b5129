/**
 * Supersession quality on the labelled pairs (test/capture/supersession/): for each pair the
 * capture rules judge whether the newer fact replaces the older one, and this prints precision
 * (of the supersessions made, the share that were right) and recall (of the real replacements,
 * the share found), per set, per family and per half (tune: the pairs rules may be tuned on; check:
 * the pairs kept to see that tuning carries over; `--misses` prints the tune half's misses only). No database: the judgement is the pure rules', which
 * the pipeline's tests check end to end.
 *
 *   bun bench/supersession.ts [--misses]
 */
import { halfOf, loadPairs, PAIR_SETS, scorePairs, type LabelledPair, type Score } from "../test/capture/supersession/pairs";

const showMisses = process.argv.includes("--misses");
const pct = (x: number): string => x.toFixed(3);

console.log("| set | family | pairs | replacements | supersessions made | right | precision | recall | newer skipped as duplicate |");
console.log("|---|---|---|---|---|---|---|---|---|");
for (const set of PAIR_SETS) {
  const pairs = loadPairs(set);
  const families: (LabelledPair["family"] | "all")[] = ["people", "companies", "projects", "decisions", "all"];
  for (const family of families) {
    const s = scorePairs(family === "all" ? pairs : pairs.filter((p) => p.family === family));
    row(set, family === "all" ? "**all**" : family, s);
  }
  for (const half of ["tune", "check"] as const) row(set, `all, ${half} half`, scorePairs(halfOf(pairs, half)));
  if (showMisses) {
    // Only the tune half's misses are shown: the check half stays unread.
    for (const m of scorePairs(halfOf(pairs, "tune")).misses) {
      console.log(`  ${m.pair.label === "supersede" ? "missed" : "WRONG "} ${JSON.stringify(m.pair.older)} -> ${JSON.stringify(m.pair.newer)} (${m.pair.why})`);
    }
  }
}

function row(set: string, name: string, s: Score): void {
  console.log(
    `| ${set} | ${name} | ${s.pairs} | ${s.replacements} | ${s.supersessions} | ${s.right} | ${pct(s.precision)} | ${pct(s.recall)} | ${s.wronglySkipped} |`,
  );
}
