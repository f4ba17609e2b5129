/**
 * Supersession quality on the labelled pairs (test/capture/supersession/): for each pair the
 * capture rules judge whether the newer fact replaces the older one, and this prints precision
 * (of the supersessions made, the share that were right) and recall (of the real replacements,
 * the share found), per set and per family. No database: the judgement is the pure rules', which
 * the pipeline's tests check end to end.
 *
 *   bun bench/supersession.ts [--misses]
 */
import { loadPairs, scorePairs, type LabelledPair, type PairSet } from "../test/capture/supersession/pairs";

const showMisses = process.argv.includes("--misses");
const pct = (x: number): string => x.toFixed(3);

console.log("| set | family | pairs | replacements | supersessions made | right | precision | recall | newer skipped as duplicate |");
console.log("|---|---|---|---|---|---|---|---|---|");
for (const set of ["dev", "holdout", "blind", "blind2", "blind3", "blind4"] as PairSet[]) {
  const pairs = loadPairs(set);
  const families: (LabelledPair["family"] | "all")[] = ["people", "companies", "projects", "decisions", "all"];
  for (const family of families) {
    const s = scorePairs(family === "all" ? pairs : pairs.filter((p) => p.family === family));
    const name = family === "all" ? `**all**` : family;
    console.log(
      `| ${set} | ${name} | ${s.pairs} | ${s.replacements} | ${s.supersessions} | ${s.right} | ${pct(s.precision)} | ${pct(s.recall)} | ${s.wronglySkipped} |`,
    );
  }
  if (showMisses) {
    for (const m of scorePairs(pairs).misses) {
      console.log(`  ${m.pair.label === "supersede" ? "missed" : "WRONG "} ${JSON.stringify(m.pair.older)} -> ${JSON.stringify(m.pair.newer)} (${m.pair.why})`);
    }
  }
}
