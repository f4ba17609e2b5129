/**
 * The lexicon: the word lists capture consults, for subjects (function words, names that are not
 * names, verbs) and for claims (verbs whose object is one value, currencies, days, attribute nouns,
 * neutral modifiers, spellings of one value). Lists, not regexes: each is a membership test on one
 * lower-cased word, and a reviewer can read and extend them without regex knowledge.
 */

const words = (text: string): ReadonlySet<string> => new Set(text.trim().split(/\s+/u));

/** A table looked up by any word of a fact: without a prototype, "constructor" or "toString" is in none. */
export const wordTable = <T>(entries: Record<string, T>): Readonly<Record<string, T>> => Object.assign(Object.create(null), entries);

/**
 * Function words: never a topic and never a name. Articles, pronouns, auxiliaries, prepositions,
 * conjunctions, question words and sentence adverbs.
 */
export const FUNCTION_WORDS: ReadonlySet<string> = words(`
  the a an this that these those it its it's they them their theirs there here
  i i'm i've i'd i'll my mine me you you're your yours he he's his him she she's her hers
  we we're we've we'd we'll our ours us one ones someone something anything everything nothing
  is are was were be been being am do does did has have had can could should would will shall
  must may might isn't aren't wasn't weren't don't doesn't didn't hasn't haven't hadn't can't
  couldn't shouldn't wouldn't won't
  when whenever if unless then while because since after before during until as at on in of for
  to from with without by about into onto over under between through per via than like
  and but or so yet nor not no yes also however please always never often sometimes usually
  every each all some most many any none both only just still even maybe perhaps really very
  today yesterday tomorrow tonight now later soon recently currently lately already again
  what which who whom whose where why how
  let let's there's here's that's what's who's it'll
`);

/** Pronouns that make the sentence about a person even when no name is given ("She lives in Oslo"). */
export const PERSONAL_PRONOUNS: ReadonlySet<string> = words(`
  i i'm i've i'd my me he he's his him she she's her they they're their you your
`);

/**
 * Capitalised words that look like names at the start of a sentence or before "'s" but are not:
 * days, months, labels ("Note:", "Password:"), imperatives and generic people-nouns.
 */
const NOT_NAMES_EXTRA: ReadonlySet<string> = words(`
  monday mondays tuesday tuesdays wednesday wednesdays thursday thursdays friday fridays
  saturday saturdays sunday sundays weekend weekends
  january february march april june july august september october november december
  note notes update updates decision decisions summary todo fyi re ps nb important reminder
  context fact facts question answer action issue bug status warning tip agenda goal owner
  edit fix feature idea password passcode passphrase pin token key secret email phone address
  username login url link name title role age subject topic source example result error output
  input step eta deadline budget plan outcome priority warning caution tldr q
  use make add remember ask send keep avoid check set try stop start run call tell give take
  hi hello hey thanks thank ok okay sure well oh wow yeah yep nope sorry great good nice cool
  everyone everybody somebody nobody anyone anybody users user customers customer people folks
  guys members staff employees engineers developers clients team teams company
  mr mrs ms dr last next first second new old other another same
`);

/** The full stop list for name detection: function words plus the look-alikes above. */
export const NOT_NAMES: ReadonlySet<string> = new Set([...FUNCTION_WORDS, ...NOT_NAMES_EXTRA]);

/**
 * Verbs that end a topic phrase ("The deploy pipeline | runs on Fridays") and that are skipped
 * after a leading pronoun ("I | prefer dark mode"). Only forms that are rarely nouns: "run",
 * "report" and "use" are left out because "the nightly run" and "the report" are topics.
 */
export const VERB_WORDS: ReadonlySet<string> = words(`
  prefer prefers preferred like likes liked love loves loved hate hates hated enjoy enjoys enjoyed
  want wants wanted wish wishes wished need needs needed think thinks thought know knows knew
  believe believes believed feel feels felt decide decides decided agree agrees agreed
  choose chooses chose chosen approve approves approved opted settled went goes go got gets get
  runs ran uses works worked lives lived live says said seems seemed looks looked happens
  happened starts started stops stopped fails failed breaks broke broken keeps kept becomes became
  includes included contains contained requires required supports supported owns owned leads led
  manages managed reports reported ships shipped takes took makes made gives gave moved moves
  joined joins left leaves sent sends told tells met meets came comes saw sees bought buys
  sold sells spent spends wrote writes built builds found finds lost loses paid pays won wins
`);

/** Irregular past and 3rd-person forms that show the word before them is a sentence subject. */
export const SUBJECT_VERB_SOURCE =
  "(?:is|was|are|were|has|had|have|will|would|can|could|should|must|may|might|does|did|do|" +
  "isn't|wasn't|doesn't|didn't|won't|can't|hasn't|hadn't|'ll|'d|and|went|sent|said|got|made|took|" +
  "gave|ran|met|left|came|became|began|bought|built|found|felt|kept|knew|lost|paid|put|read|saw|" +
  "sold|spent|told|thought|won|wrote|chose|prefer|like|love|hate|want|always|never|often|usually|" +
  "also|now|just|really|recently|still|[a-z]{1,24}(?:s|ed))(?![\\p{L}\\p{N}'])";

/** Names that are also everyday words: matched as team members only when capitalised ("Will"). */
export const AMBIGUOUS_NAMES: ReadonlySet<string> = words(`
  will may june april august mark bill grace hope joy faith rose lily page sue pat rich frank art
  max sky summer dawn chance guy jack ray sandy penny ruby amber crystal iris olive violet autumn
  skip hunter major king rob drew gene bob
`);

/**
 * Modifiers that do not change which attribute is meant: a contract's renewal date is its renewal
 * date, a list price its price. A lexicon, not a rule: any other word may name another attribute
 * ("billing contact", "skip-level manager") or another owner ("son's favorite color").
 */
export const NEUTRAL_MODIFIERS: ReadonlySet<string> = new Set(
  "contract list official standard current base annual overall total company account per seat user unit".split(" "),
);

/** Spellings of one value: "Postgres" replaced means PostgreSQL. */
export const VALUE_ALIASES: Readonly<Record<string, string>> = wordTable({ postgres: "postgresql", pg: "postgresql", k8s: "kubernetes", gcp: "google cloud" });

/** Events a thing has one date for, as the last word of a dated subject: "Legacy API sunset". */
export const DATED_EVENTS: ReadonlySet<string> = new Set([
  "deprecation",
  "sunset",
  "launch",
  "release",
  "migration",
  "go-live",
  "kickoff",
  "cutover",
  "rollout",
]);

/** Prepositions after which a name owns what comes before: "the renewal for Acme", "the roadmap of Atlas". */
export const OWNED_BY: ReadonlySet<string> = new Set(["for", "of"]);

/** Words that make a span a time, not a subject: "every Friday", "each quarter". */
export const TIME_QUANTIFIERS: ReadonlySet<string> = new Set(["every", "each", "weekly", "daily", "monthly"]);

/** Names that are times, not scopes: "the lead on Monday". */
export const DATE_HEADS: ReadonlySet<string> = new Set(
  (
    "monday tuesday wednesday thursday friday saturday sunday january february march april may june july august " +
    "september october november december q1 q2 q3 q4"
  ).split(" "),
);
