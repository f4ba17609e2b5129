/**
 * Change statements: a fact that says something changed ("Phoenix has moved into development",
 * "Mobile releases go out Thursdays now", "Offsite is in Barcelona instead of Lisbon") replaces
 * the live fact about the same subject that it changes, even where no claim rule reads the two
 * sentences as one attribute. The claim model decides first; this runs only where it found no
 * replacement, and never across subjects, end users or a claim the rules keep apart.
 *
 * Trade-off: the test is lexical (a change word, a shared subject, a shared topic word), so it
 * is kept to short single statements: a chat turn that says "now" is not a change of state.
 */
import type { Token } from "./tokens";
import {
  CHANGE_MARKERS,
  CHANGE_VERBS,
  DAYS,
  FIRST_PERSON_SINGULAR,
  FUNCTION_WORDS,
  ASPECT_HEADS,
  LOCATION_VERBS,
  MEASURE_NOUNS,
  NOT_A_STATE,
  NOT_TOPICS,
  PERSON_NOUNS,
  PLACE_PREPOSITIONS,
  VALUE_SHAPES,
} from "./rules/lexicon";
import { predicateOf, relationsMeet, sameOneValuedRelation, type Predicate } from "./predicate";
import { isChangeStatement, openingOf, singular, speakersEnd, statementTokens } from "./statement";
import type { SubjectType } from "../schema/memory";
import type { Claim } from "./types";

/** What a change statement is compared on: the fact as written and what capture made of it. */
export interface ChangeSide {
  text: string;
  subject: string;
  subjectType: SubjectType;
  claim: Claim | null;
}

/** Shapes of value that identify one thing: an email address, a host, a phone number, a channel, a version. */
const IDENTIFYING_SHAPES: ReadonlySet<string> = new Set(["email", "host", "phone", "channel", "version"]);

const TOPIC_POS: ReadonlySet<string> = new Set(["NOUN", "VERB", "ADJ", "PROPN", "NUM"]);
/** What a directed change can say it changed: "moved its headquarters", "moved its logs". */
const CHANGED_POS: ReadonlySet<string> = new Set(["NOUN", "PROPN", "VERB", "ADJ"]);
/** Names and numbers are nouns when two facts' topics are compared. */
const TOPIC_POS_CLASS: Readonly<Record<string, string>> = { PROPN: "NOUN", NUM: "NOUN" };

/** A rule by which a change statement replaces an older fact about the same subject. */
interface ChangeRule {
  name: string;
  /** Whether the rule needs the two facts to be about one subject (the "instead of" rule names the old value itself). */
  sameSubject: boolean;
  replaces: (newer: Compared, older: Compared, sameSubject: boolean) => boolean;
}

interface Compared {
  tokens: readonly Token[];
  /** Content lemmas, singular, each with its part of speech ("NOUN:meeting"), without the subject's words or change words. */
  topic: ReadonlySet<string>;
  /** The topic with the subject's words in: where the subject shifts, they are topic too. */
  content: ReadonlySet<string>;
  words: ReadonlySet<string>;
  /** The words' lemmas, singular ("headquarter"). */
  lemmas: ReadonlySet<string>;
  /** The value of each shape the fact holds (`VALUE_SHAPES`), lower-cased: "money" -> "$82,000". */
  shapes: ReadonlyMap<string, string>;
  /** Whether the fact speaks in the first person singular ("I", "my"). */
  firstPerson: boolean;
  /** The names in the fact's subject ("wayne", "freight"): lower-cased proper nouns. */
  names: readonly string[];
  /** The relation the fact claims of its subject ("run on", "have"). */
  predicate: Predicate | null;
}

/** Tried in order; the first that holds names the decision (`explainChange`). */
const CHANGE_RULES: readonly ChangeRule[] = [
  {
    // "The offsite is now going to be in Barcelona instead of Lisbon", "ping him on Slack, not email":
    // every word the fact sets aside is in the older fact.
    name: "change:instead_of",
    sameSubject: false,
    replaces: (newer, older) => {
      const at = newer.tokens.findIndex(
        (t, i) => (t.lower === "instead" && newer.tokens[i + 1]?.lower === "of") || (t.lower === "not" && newer.tokens[i - 1]?.text === ","),
      );
      if (at < 0) return false;
      const setAside = newer.tokens.slice(at + 1).filter((t) => t.pos === "NOUN" || t.pos === "PROPN" || t.pos === "NUM");
      // What is set aside must be what the older fact holds, not a word describing it: "instead of
      // paper" does not set aside "a paper notebook".
      const heads = new Set(older.tokens.filter((_, i) => older.tokens[i + 1]?.pos !== "NOUN").map((t) => t.lower));
      return setAside.length > 0 && setAside.every((t) => older.words.has(t.lower) && heads.has(t.lower));
    },
  },
  {
    // "Signe was bumped to L5" after "Signe's seniority level is L4": a directed change verb names
    // the new value; the older fact must be a short statement of one state.
    name: "change:directed",
    sameSubject: true,
    replaces: (newer, older) => {
      const at = newer.tokens.findIndex((t) => t.pos === "VERB" && CHANGE_VERBS[t.lemma]?.directed !== undefined);
      if (at < 0 || older.tokens.length > 12 || older.tokens.some((t) => NOT_A_STATE.has(t.lower))) return false;
      const to = newer.tokens.findIndex((t, i) => i > at && (t.lower === "to" || t.lower === "into"));
      if (to < 0) return false;
      // What the verb changes, when the sentence names it, is what the older fact must be about:
      // "switched its accounting to Xero" says nothing of where the brewery distributes.
      // The older fact may say it without the word ("moved desks to Building A" after "sits in
      // Building C"; "shifted her hours to 7am-3pm" after "works 9 to 5"): then the new value
      // shares a word or a shape of value with it.
      // Any content word: the tagger reads "moved its logs" with "logs" a verb.
      const changed = newer.tokens.slice(at + 1, to).filter((t) => CHANGED_POS.has(t.pos));
      const value = newer.tokens.slice(to + 1);
      const valueMeetsOlder =
        value.some((t) => (t.pos === "NOUN" || t.pos === "PROPN") && older.words.has(t.lower)) ||
        [...older.shapes.keys()].some((shape) => newer.shapes.has(shape));
      // What changed is the phrase's head: "moved the nightly build artifacts" changed the artifacts, not the build.
      const head = changed.at(-1);
      if (head !== undefined && !namedIn(older, head) && !valueMeetsOlder) return false;
      // A mover replaces where something was: "Tom moved to Berlin" says nothing of "Tom is my manager".
      if (CHANGE_VERBS[newer.tokens[at]!.lemma]?.directed === "place") {
        const located = placeOf(older.tokens);
        if (located === null) return false;
        const place = located.nouns;
        // Where someone works, by name, is their employer: "moved to Boston" says where Alice
        // lives, not that she left Globex. A workplace ("the Berlin office") is a place.
        if (located.verb === "work" && changed.length === 0 && place.every((t) => t.pos === "PROPN")) return false;
        // A place the newer fact still names did not change ("switched to night shifts at the
        // hospital" after "works at the county hospital"): its head noun and its names are there.
        const named = place.filter((t) => t.pos === "PROPN");
        if (newer.words.has(place.at(-1)!.lower) && named.every((t) => newer.words.has(t.lower))) return false;
        // A place and its new value are of one kind: a name for a name ("lives in Cluj" is not
        // replaced by "switched to a four-day week").
        if (place.some((t) => t.pos === "PROPN") && !value.some((t) => t.pos === "PROPN")) return false;
      }
      return true;
    },
  },
  {
    // "Erik prefers afternoon meetings now" after "Erik's preferred meeting time is mornings".
    name: "change:same_topic",
    sameSubject: true,
    replaces: (newer, older) => {
      if (!relationsMeet(newer.predicate, older.predicate)) return false;
      const changing = changedSpan(newer.tokens);
      return [...older.topic].some(
        (w) =>
          newer.topic.has(w) &&
          !w.startsWith("VERB:") &&
          // The shared word is what both facts are about, not a word describing another
          // ("customer success" and "a customer webinar", "a friend's wedding" and "for friends"
          // share no topic; "meeting time" names an attribute of meetings), nor a measure of time
          // ("eight years old", "six years in Portugal").
          !MEASURE_NOUNS.has(w.slice(w.indexOf(":") + 1)) &&
          standsAlone(newer.tokens, w) &&
          standsAlone(older.tokens, w) &&
          // Where the newer fact says what changed ("switched to night shifts at the hospital"), the word is in it.
          (changing === null || changing.some((t) => topicEntry(t) === w)),
      );
    },
  },
  {
    // "Kwame now earns $90,000" after "Kwame's base salary is $82,000", "Staging now lives at
    // stg.acme-internal.net" after "The staging server is at staging-01.internal": the same subject
    // holding another value of one shape.
    name: "change:same_shape",
    sameSubject: true,
    replaces: (newer, older) =>
      [...older.shapes].some(
        ([shape, value]) =>
          newer.shapes.has(shape) &&
          newer.shapes.get(shape) !== value &&
          // An address or a number names its one thing whatever the verb ("has a new number now");
          // a day, a time or an amount may be another thing's ("retros on Fridays" and "a check-in on Mondays").
          (IDENTIFYING_SHAPES.has(shape) || relationsMeet(newer.predicate, older.predicate)),
      ) && changesWhatOlderSays(newer, older),
  },
  {
    // "The Wren search service now runs on OpenSearch 2" after "... runs on Elasticsearch 7": the
    // same relation, one value at a time (rules/predicates.ts), another value.
    name: "change:same_relation",
    sameSubject: true,
    replaces: (newer, older) => sameOneValuedRelation(newer.predicate, older.predicate) && [...newer.topic].some((w) => !older.topic.has(w)),
  },
  {
    // "Fergus Olawale has taken over as CEO of Drovecraft" after "Drovecraft's CEO is Ilse
    // Marchetti": the role and what it is of are in the older fact, with someone else in it.
    name: "change:succession",
    sameSubject: false,
    replaces: (newer, older) => {
      const over = newer.tokens.findIndex((t, i) => t.lower === "over" && newer.tokens[i - 1]?.lemma === "take" && newer.tokens[i + 1]?.lower === "as");
      if (over < 0) return false;
      const role = newer.tokens.slice(over + 2).filter((t) => CHANGED_POS.has(t.pos) || t.pos === "ADP");
      const of = role.findIndex((t) => t.pos === "ADP");
      if (of <= 0) return false;
      const [title, office] = [role.slice(0, of), role.slice(of + 1).filter((t) => t.pos !== "ADP")];
      const successor = newer.tokens.slice(0, over).filter((t) => t.pos === "PROPN");
      return (
        office.length > 0 &&
        title.every((t) => namedIn(older, t)) &&
        office.every((t) => namedIn(older, t)) &&
        successor.every((t) => !older.words.has(t.lower)) &&
        older.tokens.some((t) => t.pos === "PROPN" && !office.some((o) => o.lower === t.lower))
      );
    },
  },
  {
    // "The hiring freeze was lifted" after "Leadership decided to freeze hiring through Q3": the
    // subject of a team's decisions shifts ("we", "leadership", "the team"), so two shared topic
    // words stand in for it. A name either fact is about must be in the other: two people, or two
    // companies, can share a topic. Not in the first person: that subject does not shift.
    name: "change:shared_topic",
    sameSubject: false,
    replaces: (newer, older, same) =>
      relationsMeet(newer.predicate, older.predicate) &&
      !newer.firstPerson &&
      !older.firstPerson &&
      newer.names.every((w) => older.words.has(w)) &&
      older.names.every((w) => newer.words.has(w)) &&
      changesWhatOlderSays(newer, older) &&
      sharedTopics(newer, older, same),
  },
];

/**
 * The rule by which `newer`, a change statement, replaces `older`, or null when it does not. Both
 * are facts of one scope (workspace and end user); the caller checks `isChangeStatement(newer)`.
 */
export function explainChange(newer: ChangeSide, older: ChangeSide): string | null {
  return changeReader(newer)?.(older) ?? null;
}

/**
 * `explainChange` with the newer side read once: what the rules need of it (tokens, subject,
 * topic, shapes) is the same for every candidate it is compared with. Null when it is no statement.
 */
function changeReader(newer: ChangeSide): ((older: ChangeSide) => string | null) | null {
  const newTokens = statementTokens(newer.text);
  if (newTokens === null) return null;
  const newSubject = subjectWords(newer, newTokens);
  const compared = (side: ChangeSide, tokens: readonly Token[]): Compared => {
    const read = readingOf(tokens);
    return {
      tokens,
      topic: withoutSubject(read.content, newSubject),
      content: read.content,
      words: read.words,
      lemmas: read.lemmas,
      shapes: read.shapes,
      firstPerson: read.firstPerson,
      names: namesOf(side, tokens),
      predicate: predicateOf(tokens),
    };
  };
  const n = compared(newer, newTokens);
  const denial = newTokens.findIndex((t) => t.lower === "longer" || t.lower === "anymore" || t.lower === "not" || t.lower === "n't");
  return (older) => {
    const oldTokens = statementTokens(older.text);
    if (oldTokens === null) return null;
    const read = readingOf(oldTokens);
    // A feeling is not a state a later fact replaces.
    if (read.feeling) return null;
    // The claim rules read both as one attribute and kept them apart (another object, a refinement).
    if (newer.claim && older.claim && newer.claim.subject === older.claim.subject && newer.claim.attribute === older.claim.attribute) return null;
    const oldSubject = subjectWords(older, oldTokens);
    // "raised a $60M Series B" after "raised a $20M Series A": another event of the same kind.
    if (newTokens.some((t) => t.pos === "VERB" && CHANGE_VERBS[t.lemma] !== undefined && read.verbs.has(t.lemma))) return null;
    // "no longer a partner of Oracle" does not deny a partnership with AWS.
    // What follows the negation is what it denies ("on Slack, not email" denies email).
    if (denial >= 0 && deniedClause(newTokens, denial).some((t) => t.pos === "PROPN" && !newSubject.has(t.lower) && !read.words.has(t.lower))) return null;
    const o = compared(older, oldTokens);
    const same = newer.subjectType === older.subjectType && sameSubject(newSubject, oldSubject);
    return CHANGE_RULES.find((rule) => (same || !rule.sameSubject) && rule.replaces(n, o, same))?.name ?? null;
  };
}

/** What the rules read of a statement's tokens alone, whichever statement it is compared with. */
interface TokensReading {
  words: ReadonlySet<string>;
  lemmas: ReadonlySet<string>;
  verbs: ReadonlySet<string>;
  content: ReadonlySet<string>;
  shapes: ReadonlyMap<string, string>;
  firstPerson: boolean;
  feeling: boolean;
}

/**
 * Kept per tagged sentence (the tagger's cache hands out the same tokens for the same text): a
 * recent fact is a candidate of many statements, and reading it again each time cost more than tagging.
 */
const readings = new WeakMap<readonly Token[], TokensReading>();

function readingOf(tokens: readonly Token[]): TokensReading {
  let read = readings.get(tokens);
  if (read === undefined) {
    read = {
      words: new Set(tokens.map((t) => t.lower)),
      lemmas: new Set(tokens.map((t) => singular(t.lemma))),
      verbs: new Set(tokens.filter((t) => t.pos === "VERB").map((t) => t.lemma)),
      content: contentOf(tokens),
      shapes: shapesOf(tokens),
      firstPerson: tokens.some((t) => FIRST_PERSON_SINGULAR.has(t.lower)),
      feeling: tokens.some((t) => t.lemma === "feel"),
    };
    readings.set(tokens, read);
  }
  return read;
}

/**
 * The fact a change statement replaces among `candidates` (newest first): the one the
 * first-listed rule picks, the newest of those. One at most: a change statement names one state.
 */
export function changedFact<T extends ChangeSide>(newer: ChangeSide, candidates: readonly T[]): T | null {
  if (!isChangeStatement(newer.text)) return null;
  const against = changeReader(newer);
  if (against === null) return null;
  let best: { fact: T; rank: number } | null = null;
  for (const fact of candidates) {
    const rule = against(fact);
    const rank = rule === null ? -1 : CHANGE_RULES.findIndex((r) => r.name === rule);
    if (rank >= 0 && (best === null || rank < best.rank)) best = { fact, rank };
  }
  return best?.fact ?? null;
}

/**
 * Two shared topic words where the subject shifts ("The hiring freeze was lifted" after
 * "Leadership decided to freeze hiring"). About one subject, its own words are no shared topic
 * ("the inventory sync"); nor are the words of an opening both facts share: two sentences that
 * open with "the staging database" say two things about it ("runs PostgreSQL 15", "now has
 * nightly backups").
 */
function sharedTopics(newer: Compared, older: Compared, same: boolean): boolean {
  const shared = [...(same ? older.topic : older.content)].filter((w) => (same ? newer.topic : newer.content).has(w));
  const opening = (tokens: readonly Token[]): Set<string> => {
    const verb = tokens.findIndex((t) => t.pos === "VERB" || t.pos === "AUX");
    return new Set(tokens.slice(0, Math.max(verb, 0)).map(topicEntry));
  };
  const newerOpening = [...opening(newer.tokens)].filter((w) => w.startsWith("NOUN:") || w.startsWith("ADJ:"));
  const olderOpening = opening(older.tokens);
  const sameOpening =
    newerOpening.length > 0 &&
    newerOpening.every((w) => olderOpening.has(w)) &&
    newerOpening.length === [...olderOpening].filter((w) => w.startsWith("NOUN:") || w.startsWith("ADJ:")).length;
  return shared.length >= 2 && !(sameOpening && shared.every((w) => newerOpening.includes(w)));
}

/**
 * What a negation denies: the words after it up to the end of its clause. "No longer uses Webpack;
 * it builds with Vite instead" denies Webpack, not Vite.
 */
function deniedClause(tokens: readonly Token[], denial: number): readonly Token[] {
  const end = tokens.findIndex((t, i) => i > denial && (t.text === ";" || t.text === "," || t.pos === "CCONJ"));
  return tokens.slice(denial, end < 0 ? undefined : end);
}

/** A token as a topic entry ("NOUN:meeting"), as `contentOf` writes them. */
const topicEntry = (t: Token): string => `${TOPIC_POS_CLASS[t.pos] ?? t.pos}:${singular(t.lemma)}`;

/**
 * The topic word is a head where the fact says it: not followed by a word it describes ("customer
 * success") or owns ("a friend's wedding"). A number after it is its value ("version 3.0", "room
 * 214"), and an attribute head names what about it ("meeting time").
 */
function standsAlone(tokens: readonly Token[], entry: string): boolean {
  return tokens.some((t, i) => {
    const next = tokens[i + 1];
    if (topicEntry(t) !== entry) return false;
    if (next === undefined || next.lower === "'s" || next.lower === "'") return next === undefined;
    return !(next.pos === "NOUN" || next.pos === "PROPN") || !/^\p{L}/u.test(next.text) || ASPECT_HEADS.has(singular(next.lemma));
  });
}

/**
 * Where a directed change names what it changed ("moved its sprint planning to Monday mornings"),
 * the older fact names it too; "holds retros every other Friday" is not about sprint planning.
 */
function changesWhatOlderSays(newer: Compared, older: Compared): boolean {
  const at = newer.tokens.findIndex((t) => t.pos === "VERB" && CHANGE_VERBS[t.lemma]?.directed !== undefined);
  const to = newer.tokens.findIndex((t, i) => i > at && (t.lower === "to" || t.lower === "into"));
  if (at < 0 || to < 0) return true;
  const changed = newer.tokens.slice(at + 1, to).filter((t) => CHANGED_POS.has(t.pos));
  // The phrase's head is what changed: "moved the nightly build artifacts" changed the artifacts.
  const head = changed.at(-1);
  return head === undefined || namedIn(older, head);
}

/**
 * What a directed change says changed: the words between its verb and "to"/"into" but their
 * owners, and the phrase after it up to the next preposition ("switched the frontend's test runner
 * to Vitest" changed the test runner; "switched to night shifts at the hospital" the shifts); null
 * when the fact has no directed change.
 */
function changedSpan(tokens: readonly Token[]): Token[] | null {
  const at = tokens.findIndex((t) => t.pos === "VERB" && CHANGE_VERBS[t.lemma]?.directed !== undefined);
  const to = tokens.findIndex((t, i) => i > at && (t.lower === "to" || t.lower === "into"));
  if (at < 0 || to < 0) return null;
  const end = tokens.findIndex((t, i) => i > to && (t.pos === "ADP" || t.pos === "PUNCT"));
  const owner = (i: number): boolean => tokens[i + 1]?.lower === "'s" || tokens[i + 1]?.lower === "'";
  return [...tokens.slice(at + 1, to).filter((_, j) => !owner(at + 1 + j)), ...tokens.slice(to + 1, end < 0 ? undefined : end)];
}

/**
 * The nouns of where a fact says something is, after a place preposition that follows a verb of
 * location ("is in the design phase", "lives in Cluj", "works at the county hospital"), with that
 * verb; null when it says no such place.
 */
function placeOf(tokens: readonly Token[]): { verb: string; nouns: Token[] } | null {
  let verb: string | null = null;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.pos === "VERB" || t.pos === "AUX") verb = t.lemma;
    if (t.pos !== "ADP" || !PLACE_PREPOSITIONS.has(t.lower) || verb === null || !LOCATION_VERBS.has(verb)) continue;
    const end = tokens.findIndex((u, j) => j > i && (u.pos === "ADP" || u.pos === "PUNCT" || u.pos === "VERB" || u.pos === "CCONJ"));
    const nouns = tokens.slice(i + 1, end < 0 ? undefined : end).filter((u) => u.pos === "NOUN" || u.pos === "PROPN");
    if (nouns.length > 0) return { verb, nouns };
  }
  return null;
}

/** Whether a word of the newer fact is in the older, as written or as a lemma ("headquarters" and "headquartered"). */
function namedIn(older: Compared, t: Token): boolean {
  return older.words.has(t.lower) || older.lemmas.has(singular(t.lemma));
}

/** The subject's words, from the claim when there is one ("mobile release") else from the fact's subject. */
function subjectWords(side: ChangeSide, tokens: readonly Token[]): Set<string> {
  // The speaker's people: "my sister lives in Leeds" is about the sister, "my sister's manager" too.
  const at = tokens.indexOf(openingOf(tokens) ?? tokens[0]!);
  const next = tokens[at + 1];
  if (tokens[at]?.lower === "my" && next !== undefined && PERSON_NOUNS.has(singular(next.lemma))) return new Set([`my ${singular(next.lemma)}`]);
  // "Tom is my manager" is about Tom.
  if (side.subjectType === "end_user" && tokens[at]?.pos === "PROPN") {
    const name = tokens.slice(at).findIndex((t) => t.pos !== "PROPN");
    return new Set(tokens.slice(at, name < 0 ? undefined : at + name).map((t) => t.lower));
  }
  // Facts about an end user are compared within that end user's scope only, and "I prefer
  // morning meetings" is the speaker's whatever the sentence's topic phrase: one subject.
  if (side.subjectType === "end_user" || FIRST_PERSON_SINGULAR.has(tokens[at]?.lower ?? "")) return new Set(["<speaker>"]);
  const subject = side.claim?.subject ?? side.subject;
  return new Set(
    subject
      .toLowerCase()
      .split(/[^\p{L}\p{N}:_-]+/u)
      .filter((w) => w !== "" && w !== "project" && w !== "the")
      .map(singular),
  );
}

/** One subject named more or less fully: "Phoenix" and "Project Phoenix", "staging" and "staging server". */
function sameSubject(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  const shared = [...a].filter((w) => b.has(w)).length;
  return shared > 0 && (shared === a.size || shared === b.size);
}

/**
 * The first value of each shape in the fact; a day of the week is a shape too. Read from the
 * words as written, since the tokeniser splits "$82,000", "85%" and "stg.acme.net".
 */
function shapesOf(tokens: readonly Token[]): Map<string, string> {
  const shapes = new Map<string, string>();
  const written = tokens.map((t) => `${t.spaced ? " " : ""}${t.text}`).join("");
  for (const raw of written.split(/\s+/u)) {
    const word = raw.replace(/^[("']+|[.,;:!?)"']+$/gu, "").toLowerCase();
    const shape = VALUE_SHAPES.find((s) => s.pattern.test(word))?.shape ?? (DAYS.has(word) ? "day" : undefined);
    if (shape !== undefined && !shapes.has(shape)) shapes.set(shape, singular(word));
  }
  return shapes;
}

function namesOf(side: ChangeSide, tokens: readonly Token[]): string[] {
  const subject = new Set(side.subject.toLowerCase().split(/\s+/u));
  return tokens.filter((t) => t.pos === "PROPN" && subject.has(t.lower)).map((t) => t.lower);
}

/** The content words of a statement that are not its subject's: what it is about besides whom. */
function withoutSubject(content: ReadonlySet<string>, subject: ReadonlySet<string>): Set<string> {
  const topic = new Set<string>();
  for (const entry of content) if (!subject.has(entry.slice(entry.indexOf(":") + 1))) topic.add(entry);
  return topic;
}

/**
 * A statement's content words, singular lemmas each with its part of speech ("NOUN:meeting"),
 * without function words, change words or the speaker's name.
 */
function contentOf(tokens: readonly Token[]): Set<string> {
  const content = new Set<string>();
  // The speaker's name is who said it, not what it is about.
  for (const t of tokens.slice(speakersEnd(tokens))) {
    if (!TOPIC_POS.has(t.pos) || FUNCTION_WORDS.has(t.lemma) || NOT_TOPICS.has(t.lemma) || CHANGE_MARKERS[t.lower] !== undefined) continue;
    if (CHANGE_VERBS[t.lemma] !== undefined) continue;
    // Tagged with its part of speech: "the right influencers" and "voting rights" share no topic.
    content.add(topicEntry(t));
  }
  return content;
}

/**
 * The words a fact replaced by `text` must contain one of (lower-cased, as stored in
 * `normalized`): the statement's subject and topic words, which every change rule needs one of.
 */
export function changeSearchWords(text: string): string[] {
  const tokens = statementTokens(text) ?? [];
  const words = new Set<string>();
  for (const t of tokens) {
    if (!TOPIC_POS.has(t.pos) || FUNCTION_WORDS.has(t.lower) || CHANGE_VERBS[t.lemma] !== undefined || CHANGE_MARKERS[t.lower] !== undefined) continue;
    if (t.lower.length < 3) continue;
    words.add(singular(t.lower));
    words.add(singular(t.lemma));
  }
  return [...words];
}
