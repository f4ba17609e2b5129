/**
 * Intents: the attributes a text names, read with the attribute lexicon capture reads claims with
 * (src/capture/attributes), the question frames (question-frames.ts) and the kinds of software
 * (software-kinds.ts: "PostgreSQL" and "what database" both name `database`). "I was raised in York"
 * and "where did I grow up?" both name `hometown`; "My GP is Dr. Okafor" and "who is my family
 * doctor?" both name `doctor`. The index holds a fact's intents as terms of their own and a query's
 * intents match them, as a query word matches the category of a fact's word.
 *
 * A phrase is the lexicon's wording split at its slots ("{s} get to work by {v}": "get to work"),
 * without a leading "be" or article and a trailing preposition. Its words match any of their
 * inflections ("grow up" reads "grew up", "growing up"), and articles, possessives and a few
 * fillers may stand between them. A phrase of one very common word ("work", "go", "use"), or one
 * that more than two attributes say ("pay", "take over as"), names nothing in particular and is
 * left out.
 */
import { ATTRIBUTE_LEXICON } from "../../capture/attributes";
import { termsOf, wordsOf } from "../index/terms";
import { lexicon } from "./lexicon";
import { QUESTION_FRAMES } from "./question-frames";
import { SOFTWARE_KINDS } from "./software-kinds";

/** Index terms of intents start with this: no word of a text can ("hometown" is "@hometown"). */
export const INTENT_PREFIX = "@";

/** One named attribute, the phrase that named it and the text's words it matched. */
export interface Intent {
  attribute: string;
  phrase: string;
  /** The text's own words, lower-cased, from the phrase's first to its last ("was raised in"). */
  words: string;
}

interface Phrase {
  attribute: string;
  text: string;
  /** Each word's accepted forms. */
  words: ReadonlySet<string>[];
  /** Words of any kind that may stand between two of its words (a question frame's), else only fillers. */
  gap: number;
}

/** Left off the ends of a phrase: "be born on" is read as "born". */
const LEADING: ReadonlySet<string> = new Set(["be", "a", "an", "the"]);
const TRAILING: ReadonlySet<string> = new Set(["in", "at", "on", "to", "for", "of", "from", "with", "as", "into", "about", "a", "an", "the"]);
/** May stand between a phrase's words: "get to the office" ("wake up early" does not: "early" is no filler). */
// biome-ignore format: a word list
const FILLERS: ReadonlySet<string> = new Set(["a", "an", "the", "my", "your", "his", "her", "our", "their", "its", "now", "just", "still",
  "really", "currently", "recently", "usually", "always", "also", "actually", "normally", "mostly"]);
const MAX_FILLERS = 2;
/** Words of any kind between two words of a question frame: "where does the new hire live". */
const QUESTION_GAP = 3;
/**
 * A phrase of one word this common (by the lexicon's frequency rank; the meaning signal's general
 * words) names no attribute: "work", "go", "born" (but "work at", "go by" and "born on" do).
 */
const COMMON_RANK = 300;
/** A template's lone verb this common says too many things to name one attribute ("grow", "cost"; the meaning signal's common words). */
const COMMON_VERB_RANK = 2_000;
/** Words of how often and how much ("{s} take {v} every morning", "{s} make {v} a year"): a part of only these names nothing. */
// biome-ignore format: a word list
const HOW_OFTEN: ReadonlySet<string> = new Set(["every", "each", "per", "a", "an", "once", "twice", "daily", "weekly", "monthly", "yearly",
  "annually", "hourly", "day", "week", "month", "year", "hour", "morning", "evening", "night"]);
/**
 * A phrase that more attributes than this say names none of them: "pay" (salary, rent, price and
 * seven more), "keep", "take over as" (every role), "go by". "born on" (birthday) and "on call"
 * (on-call lead, on-call rotation) stay.
 */
const MAX_ATTRIBUTES_OF_A_PHRASE = 2;

/** Forms English spelling rules do not make, by lemma. */
// biome-ignore format: a data table
const IRREGULAR: Readonly<Record<string, readonly string[]>> = {
  be: ["am", "is", "are", "was", "were", "been", "being", "m", "s", "re"], have: ["has", "had", "having"], do: ["does", "did", "done", "doing"],
  go: ["goes", "went", "gone"], get: ["got", "gotten"], grow: ["grew", "grown"], bear: ["born", "bore", "borne"], bring: ["brought"],
  come: ["came"], make: ["made"], take: ["took", "taken"], leave: ["left"], run: ["ran"], teach: ["taught"], speak: ["spoke", "spoken"],
  eat: ["ate", "eaten"], drive: ["drove", "driven"], ride: ["rode", "ridden"], buy: ["bought"], sell: ["sold"], hold: ["held"],
  find: ["found"], fall: ["fell", "fallen"], begin: ["began", "begun"], rise: ["rose", "risen"], keep: ["kept"], pay: ["paid"],
  say: ["said"], see: ["saw", "seen"], know: ["knew", "known"], give: ["gave", "given"], sit: ["sat"], stand: ["stood"],
  wear: ["wore", "worn"], write: ["wrote", "written"], build: ["built"], feel: ["felt"], meet: ["met"], send: ["sent"],
  spend: ["spent"], lead: ["led"], fly: ["flew", "flown"], win: ["won"], lose: ["lost"], think: ["thought"], catch: ["caught"],
  sleep: ["slept"], wake: ["woke", "woken"], swim: ["swam", "swum"], choose: ["chose", "chosen"], break: ["broke", "broken"],
  become: ["became"], forget: ["forgot", "forgotten"], fight: ["fought"], deal: ["dealt"], hear: ["heard"], lie: ["lay", "lain"],
  shut: [], set: [], put: [], cut: [], let: [], quit: [], hit: [], cost: [], hurt: [], split: [], spread: [],
};

/** A word's forms: the word, its -s, -ed and -ing forms by the spelling rules, and its irregular ones. */
function formsOf(word: string): Set<string> {
  const forms = new Set([word, ...(IRREGULAR[word] ?? [])]);
  const last = word.at(-1) ?? "";
  const vowel = (c: string): boolean => "aeiou".includes(c);
  if (last === "e")
    forms
      .add(`${word}s`)
      .add(`${word}d`)
      .add(`${word.slice(0, -1)}ing`);
  else if (last === "y" && !vowel(word.at(-2) ?? ""))
    forms
      .add(`${word.slice(0, -1)}ies`)
      .add(`${word.slice(0, -1)}ied`)
      .add(`${word}ing`);
  else {
    forms
      .add(/(s|x|z|ch|sh)$/u.test(word) ? `${word}es` : `${word}s`)
      .add(`${word}ed`)
      .add(`${word}ing`);
    // Stop, plan, admit: a short vowel before a final consonant doubles it.
    if (word.length >= 3 && !vowel(last) && vowel(word.at(-2)!) && !vowel(word.at(-3)!) && !"wxy".includes(last)) {
      forms.add(`${word}${last}ed`).add(`${word}${last}ing`);
    }
  }
  return forms;
}

/**
 * A lexicon wording as phrases, one a part between its slots: trimmed ("be raise in": "raise"),
 * and kept with its preposition too ("work at"), for when the trimmed word is too common alone.
 * One word of a verb's template says nothing alone ("{s} be a {v} shop", "{s} be write in {v}"),
 * unless it is the template's one active verb ("{v} terrify {s}"); a state's does ("{s} be vegetarian").
 */
function phrasesOf(attribute: string, wording: string, loneWords: boolean): { trimmed: Phrase; full: Phrase | null }[] {
  const phrases: { trimmed: Phrase; full: Phrase | null }[] = [];
  const parts = wording.split(/\{[svx]\}/u);
  const literal = parts.filter((part) => wordsOf(part).length > 0).length;
  for (const part of parts) {
    const said = wordsOf(part);
    const words = [...said];
    while (words.length > 0 && LEADING.has(words[0]!)) words.shift();
    const full = [...words];
    while (words.length > 0 && TRAILING.has(words.at(-1)!)) words.pop();
    if (words.length === 0) continue;
    // A lone active verb is the whole of its wording ("{v} terrify {s}"), when it is no common
    // word ("{s} grow to {v}" says nothing); a lone word beside others ("{s} be a {v} shop") or
    // after "be" ("{s} be write in {v}") is not.
    if (words.length === 1 && parts.length > 1 && !loneWords && (literal > 1 || said[0] === "be" || isCommon(words[0]!, COMMON_VERB_RANK))) continue;
    if (words.every((w) => HOW_OFTEN.has(w))) continue;
    const phrase = (w: readonly string[]): Phrase => ({ attribute, text: w.join(" "), words: w.map(formsOf), gap: 0 });
    phrases.push({ trimmed: phrase(words), full: full.length > words.length ? phrase(full) : null });
  }
  return phrases;
}

/**
 * A question frame as written (no trimming: "where be from" needs its "from"), its words apart
 * by up to QUESTION_GAP others ("where is Ana from?").
 */
function framePhrase(attribute: string, frame: string): Phrase {
  const words = wordsOf(frame);
  return { attribute, text: words.join(" "), words: words.map(formsOf), gap: QUESTION_GAP };
}

function isCommon(word: string, rank = COMMON_RANK): boolean {
  const [term] = termsOf(word);
  return term === undefined || lexicon().rankOf(term) < rank;
}

/**
 * The phrases by each form of their first word: those of one word, those of more by each form of
 * their second (a text's word is compared with the few phrases its next words can continue, not
 * with every phrase that starts with "have"), and the question frames, whose words stand apart.
 */
interface Entry {
  alone: Phrase[];
  bySecond: Map<string, Phrase[]>;
  gapped: Phrase[];
}

let compiled: Map<string, Entry> | null = null;

function phraseTable(): Map<string, Entry> {
  if (compiled !== null) return compiled;
  const table = new Map<string, Entry>();
  const seen = new Set<string>();
  const add = (phrase: Phrase): void => {
    const key = `${phrase.attribute}|${phrase.text}`;
    if (seen.has(key)) return;
    seen.add(key);
    for (const form of phrase.words[0]!) {
      const entry: Entry = table.get(form) ?? { alone: [], bySecond: new Map(), gapped: [] };
      table.set(form, entry);
      if (phrase.gap > 0) entry.gapped.push(phrase);
      else if (phrase.words.length === 1) entry.alone.push(phrase);
      else for (const second of phrase.words[1]!) entry.bySecond.set(second, [...(entry.bySecond.get(second) ?? []), phrase]);
    }
  };
  const software = SOFTWARE_KINDS.flatMap((k) => [...k.nouns, ...k.members].flatMap((wording) => phrasesOf(k.kind, wording, true)));
  const fromLexicon = ATTRIBUTE_LEXICON.flatMap((record) => [
    ...[...(record.nouns ?? []), ...Object.values(record.states ?? {}).flat()].flatMap((wording) => phrasesOf(record.attribute, wording, true)),
    ...[...(record.says ?? []), ...(record.sets ?? []), ...(record.ends ?? [])].flatMap((wording) => phrasesOf(record.attribute, wording, false)),
  ]);
  fromLexicon.push(...software);
  // How many attributes say each short phrase: one said by many names none of them.
  const attributesOf = new Map<string, Set<string>>();
  const count = (phrase: Phrase): void => {
    attributesOf.set(phrase.text, (attributesOf.get(phrase.text) ?? new Set()).add(phrase.attribute));
  };
  for (const { trimmed, full } of fromLexicon) {
    count(trimmed);
    if (full !== null) count(full);
  }
  const namesOne = (phrase: Phrase): boolean => (attributesOf.get(phrase.text)?.size ?? 0) <= MAX_ATTRIBUTES_OF_A_PHRASE;
  for (const { trimmed, full } of fromLexicon) {
    if (namesOne(trimmed) && (trimmed.words.length > 1 || !isCommon(trimmed.text))) add(trimmed);
    else if (full !== null && namesOne(full)) add(full);
  }
  for (const record of QUESTION_FRAMES) for (const frame of record.frames) add(framePhrase(record.attribute, frame));
  compiled = table;
  return table;
}

/** The attributes a text names, each once with the first phrase that named it, in the order named. */
export function intentsOf(text: string): Intent[] {
  const table = phraseTable();
  const words = wordsOf(text);
  const found = new Map<string, Intent>();
  const consider = (phrase: Phrase, start: number): void => {
    if (found.has(phrase.attribute)) return;
    const end = matchEnd(phrase, words, start);
    if (end > start) found.set(phrase.attribute, { attribute: phrase.attribute, phrase: phrase.text, words: words.slice(start, end).join(" ") });
  };
  for (let i = 0; i < words.length; i++) {
    const entry = table.get(words[i]!);
    if (entry === undefined) continue;
    for (const phrase of entry.alone) consider(phrase, i);
    // The second word comes next, or after fillers.
    for (let j = i + 1; j < words.length && j <= i + 1 + MAX_FILLERS; j++) {
      for (const phrase of entry.bySecond.get(words[j]!) ?? []) consider(phrase, i);
      if (!FILLERS.has(words[j]!)) break;
    }
    for (const phrase of entry.gapped) consider(phrase, i);
  }
  return [...found.values()];
}

/** The index terms of a text's intents ("@hometown"). */
export function intentTermsOf(text: string): string[] {
  return intentsOf(text).map((intent) => INTENT_PREFIX + intent.attribute);
}

/** Past the phrase's last word when it matches at `start`, else `start`. */
function matchEnd(phrase: Phrase, words: readonly string[], start: number): number {
  let at = start + 1;
  for (let k = 1; k < phrase.words.length; k++) {
    const forms = phrase.words[k]!;
    let skipped = 0;
    while (at < words.length && !forms.has(words[at]!)) {
      // A question frame's words may stand apart; a lexicon phrase's only across fillers.
      if (skipped >= (phrase.gap > 0 ? phrase.gap : MAX_FILLERS) || (phrase.gap === 0 && !FILLERS.has(words[at]!))) return start;
      at++;
      skipped++;
    }
    if (at >= words.length) return start;
    at++;
  }
  return at;
}

/**
 * What the phrase table is made of, for the snapshot format (a change to it retires every
 * snapshot): the records and the rules' data, not the table, which needs the lexicon loaded.
 */
export function intentSources(): string {
  const wordings = ATTRIBUTE_LEXICON.map((r) => [r.attribute, r.nouns, r.says, r.sets, r.ends, r.states]);
  return JSON.stringify([
    wordings,
    QUESTION_FRAMES,
    IRREGULAR,
    [...LEADING],
    [...TRAILING],
    [...FILLERS],
    MAX_FILLERS,
    QUESTION_GAP,
    COMMON_RANK,
    MAX_ATTRIBUTES_OF_A_PHRASE,
  ]);
}
