/**
 * The lexicon: the word lists capture consults, for subjects (function words, names that are not
 * names, verbs) and for claims (verbs whose object is one value, currencies, days, attribute nouns,
 * neutral modifiers, spellings of one value). Lists, not regexes: each is a membership test on one
 * lower-cased word, and a reviewer can read and extend them without regex knowledge.
 */

const words = (text: string): ReadonlySet<string> => new Set(text.trim().split(/\s+/u));
/** Entries that may hold spaces, separated by "|". */
const phrases = (text: string): ReadonlySet<string> =>
  new Set(
    text
      .split("|")
      .map((p) => p.trim().replace(/\s+/gu, " "))
      .filter((p) => p !== ""),
  );

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

/** Verbs whose object is the one value of an attribute: you drive one car at a time. */
export const SINGLE_VALUED_VERBS: Readonly<Record<string, string>> = {
  drive: "car",
};

/** What a customer can be billed in ("pays its invoices in euros"). */
export const CURRENCIES: ReadonlySet<string> = new Set(
  "euro euros eur € dollar dollars usd $ gbp pound pounds sterling yen jpy chf franc francs cad aud inr rupee rupees sek nok dkk".split(" "),
);

/** The days a recurring thing can fall on ("releases ship on Tuesdays"). */
export const DAYS: ReadonlySet<string> = new Set(
  "monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays thursdays fridays saturdays sundays weekday weekdays".split(" "),
);

/** Nouns that name one attribute of the thing before them ("the office Wi-Fi password"). */
export const ATTRIBUTE_HEADS: ReadonlySet<string> = new Set(
  "password passcode pin address number phone email url domain hostname host channel repo repository extension language currency ip".split(" "),
);

/** Nouns that name the attribute their modifier is the value of: "the London office", "the Growth team". */
export const VALUE_HEADS: ReadonlySet<string> = new Set(
  "team office floor building plan tier phase stage channel squad department region cohort shift".split(" "),
);

/**
 * Modifiers that do not change which attribute is meant: a contract's renewal date is its renewal
 * date, a list price its price. A lexicon, not a rule: any other word may name another attribute
 * ("billing contact", "skip-level manager") or another owner ("son's favorite color").
 */
export const NEUTRAL_MODIFIERS: ReadonlySet<string> = new Set(
  "contract list official standard current base annual overall total company account per seat user unit".split(" "),
);

/** Spellings of one value: "Postgres" replaced means PostgreSQL. */
export const VALUE_ALIASES: Readonly<Record<string, string>> = { postgres: "postgresql", pg: "postgresql", k8s: "kubernetes", gcp: "google cloud" };

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

/** Heads of job titles: a role claim needs one, so "Maya is a friend of Tom" is not a role (plus "head of ..."). */
export const TITLE_HEADS: ReadonlySet<string> = phrases(`
  ceo | cto | cfo | coo | cmo | cio | ciso | cpo | cro | vp | svp | evp | president |
  vice president | director | manager | engineer | developer | designer | analyst | architect |
  scientist | consultant | founder | co-founder | cofounder | chair | chairman | chairwoman |
  chairperson | lead | tech lead | team lead | intern | recruiter | accountant | lawyer |
  attorney | counsel | nurse | doctor | teacher | professor | editor | writer | producer |
  researcher | administrator | coordinator | specialist | officer | executive | partner at |
  principal | strategist | marketer | salesperson | account executive | product owner |
  controller | treasurer | secretary | advisor | adviser | board member | contractor | employee |
  freelancer | paramedic | pilot | chef | pharmacist | dentist | therapist | student | technician |
  mechanic | electrician | operator | agent | representative | rep | associate | apprentice
`);

/** Stages a thing is "in": "in beta", "in review". */
export const STATUS_STAGES: ReadonlySet<string> = phrases(`
  beta | alpha | ga | production | review | qa | testing | development | planning | progress |
  discovery | maintenance | preview | private beta | public beta | open beta | closed beta
`);

/** Statuses a project, company or account is in, one at a time (besides "in <stage>"). */
export const STATUSES: ReadonlySet<string> = phrases(`
  generally available | ga | live | blocked | on track | on hold | at risk | paused | cancelled | canceled |
  deprecated | shipped | completed | complete | done | finished | delayed | behind schedule |
  ahead of schedule | active | inactive | archived | approved | rejected | pending | out of stock |
  in stock | sunset | sunsetted | frozen | stalled | launched | off track | green | yellow | red |
  amber | churned | a customer | a prospect | a trial customer | in trial | on trial |
  in onboarding | onboarding | in private preview | in public preview | general availability |
  unpaused | resumed | healthy | unhealthy | degraded
`);

/**
 * Verbs that report a change of state ("Phoenix has moved into development"), by lemma. Directed
 * ones name the new value after "to" or "into" ("was bumped to L5"), so a fact built on one needs
 * no word in common with the fact it changes.
 */
export const CHANGE_VERBS: Readonly<Record<string, { directed?: "place" | "value" }>> = Object.fromEntries([
  // Movers: the new value is a place, a host, a stage or a time ("moved into development").
  ...[...words("move relocate migrate shift switch transfer push")].map((w) => [w, { directed: "place" }]),
  // The new value of the same attribute ("was bumped to L5", "renamed to Beacon").
  ...[...words("bump promote upgrade downgrade rename revise raise lower change")].map((w) => [w, { directed: "value" }]),
  ...[...words("replace reassign lift cancel quit rotate ramp reverse hand step graduate drop trade")].map((w) => [w, {}]),
]);

/** Where a mover's older value was: "is in the design phase", "is hosted on Heroku", "sits in Building C". */
export const PLACE_PREPOSITIONS: ReadonlySet<string> = words("in at on from to into out of");

/**
 * Nouns that name an aspect of the noun before them ("meeting time", "coffee order"): a change
 * statement about that noun is about the same topic.
 */
export const ASPECT_HEADS: ReadonlySet<string> = words("time day preference order type style schedule setting plan");

/** Measures of time: two facts that both count years or days share no topic by it. */
export const MEASURE_NOUNS: ReadonlySet<string> = words("year month week day hour minute second time");

/**
 * Verbs whose preposition says where something is ("is in", "lives in", "is hosted on", "works
 * at"): a mover ("moved to Berlin") replaces only such a place. "Focuses on climate tech" is no
 * place, and a move does not replace it.
 */
export const LOCATION_VERBS: ReadonlySet<string> = words("be live sit host base locate run deploy store keep stay work reside house meet headquarter");

/**
 * People an end user (or a speaker) talks about: "my sister", "my manager". A fact that opens with
 * one is about that person, not the speaker.
 */
export const PERSON_NOUNS: ReadonlySet<string> = words(`
  sister brother son daughter wife husband partner spouse mother mom mum father dad parent kid
  child baby friend boyfriend girlfriend fiance fiancee cousin aunt uncle niece nephew grandma
  grandpa grandmother grandfather grandparent roommate flatmate neighbor neighbour colleague
  coworker boss manager mentor teammate landlord doctor dog cat pet
`);

/**
 * Words that mark a statement as the current state rather than one more fact, each with the word
 * that must come before it, if any: "now", "instead", "no longer", "going forward".
 */
export const CHANGE_MARKERS: Readonly<Record<string, { after?: readonly string[] }>> = {
  now: {},
  instead: {},
  anymore: {},
  longer: { after: ["no"] },
  forward: { after: ["going"] },
  // "Dmitri is back in the Berlin office", "Oliver is back from leave".
  back: { after: ["is", "'s", "are", "'re", "was"] },
  // "The billing revamp is down to 4 engineers", "Acme is up to 80 seats".
  down: { after: ["is", "'s", "are", "'re", "was"] },
  up: { after: ["is", "'s", "are", "'re", "was"] },
  // "ping him on Slack, not email".
  not: { after: [","] },
  // "Odalys Ferrer took over as tech lead".
  over: { after: ["took", "taken", "takes", "take", "taking"] },
};

/** Units of time: "for three years now" says how long, not that something changed. */
export const TIME_UNITS: ReadonlySet<string> = words("second minute hour day week month year decade while ages");

/**
 * Words that make a change hypothetical, hearsay or a question: nothing has changed yet. Each with
 * the words after it that make it a statement after all ("I'd rather ...").
 */
export const HEDGE_WORDS: Readonly<Record<string, { unlessBefore?: readonly string[]; unlessAfter?: readonly string[] }>> = Object.fromEntries([
  ...[...words("could may might should consider think hope if whether maybe perhaps rumor rumour reportedly apparently")].map((w) => [w, {}]),
  // "We no longer plan to hire", "cancelled the plan to sunset": a plan ended is a change.
  ["plan", { unlessAfter: ["longer", "not", "n't", "cancel", "drop", "scrap", "abandon", "reverse"] }],
  ["would", { unlessBefore: ["rather"] }],
  // "asked about transferring" is not a transfer; "asked that meetings be held in Spanish" is a decision.
  ["ask", { unlessBefore: ["that"] }],
]);

/**
 * Shapes of values that name one thing each: two facts about one subject that both hold a value of
 * a shape, one of them saying that it changed, hold two values of one attribute. Tested on a
 * token's text, in order; the first that fits names the shape.
 */
export const VALUE_SHAPES: readonly { shape: string; pattern: RegExp }[] = [
  { shape: "email", pattern: /^[^\s@]+@[^\s@]+\.[a-z]{2,}$/iu },
  { shape: "host", pattern: /^(?:https?:\/\/)?[a-z0-9-]+(?:\.[a-z0-9-]+)+(?:\/\S*)?$/iu },
  { shape: "phone", pattern: /^\+?\d[\d -]{6,}\d$/u },
  { shape: "money", pattern: /^(?:[$€£]\d[\d,.]*[kmb]?|\d[\d,.]*[kmb]?[$€£])(?:\/[a-z]+)?$/iu },
  { shape: "percent", pattern: /^\d+(?:\.\d+)?%$/u },
  { shape: "time", pattern: /^(?:\d{1,2}:\d{2}(?:am|pm)?|\d{1,2}(?:am|pm))$/iu },
  { shape: "channel", pattern: /^#[\p{L}\p{N}_-]+$/u },
  { shape: "version", pattern: /^v\d+(?:\.\d+)*$/iu },
];

/**
 * Words that add to what is known rather than replace it: "Yuki also speaks French", "is now
 * available in Irish as well", each with the word that must come before it, if any.
 */
export const ADDITIVE_WORDS: Readonly<Record<string, { after?: readonly string[] }>> = {
  ...Object.fromEntries([...words("also too another additionally second")].map((w) => [w, {}])),
  well: { after: ["as"] },
};

/** Words that are never the topic two facts share: generic verbs and the change markers' own words. */
export const NOT_TOPICS: ReadonlySet<string> = words(`
  be have do get make say want go new just still going these days since more lot thing way time
  good great much well really sure look forward see life stuff people world feel
`);

/** The speaker, in the first person singular: "I prefer morning meetings" is about whoever said it. */
export const FIRST_PERSON_SINGULAR: ReadonlySet<string> = words("i my me mine myself");

/** Words that open a question even without its question mark ("how to switch …"). */
export const QUESTION_WORDS: ReadonlySet<string> = words("what who how why when where which whose");

/** Words that make a fact a wish, a plan or an ability rather than a state a change can end ("ca" and "wo" are "can't" and "won't" split). */
export const NOT_A_STATE: ReadonlySet<string> = words("can ca could will wo 'll would wait want try");
