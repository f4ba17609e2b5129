import { anyOf, escapeRegex, type Rule } from "./rule";
import { STATUS_STAGES, STATUSES, SUBJECT_VERB_SOURCE, TITLE_HEADS } from "./lexicon";

/**
 * The claim model's tables. A claim is one statement about one subject that a later statement can
 * replace. Rules are anchored on the whole (speaker- and filler-stripped, negation-folded) first
 * sentence, so "I think Priya's manager is Tom" and "If Priya's manager is Tom, ..." make no
 * claim. A wrong supersession hides a true fact while a missed one only keeps an extra fact, so
 * every rule prefers silence when in doubt.
 *
 * Two cardinalities:
 *   - "one": the attribute holds one value at a time (a manager, a city, a plan, a launch date):
 *     a new value replaces the old one.
 *   - "many": the relation holds many values at once (likes, speaks, has visited): a new value is
 *     added; only its negation ("no longer plays the guitar") replaces it.
 *
 * Groups: `subject` (absent when the rule fixes it), `attr` (absent when the rule fixes
 * `attribute`), `value` (absent: the rest of the sentence).
 */
export type Cardinality = "one" | "many";

export interface ClaimRule extends Rule {
  readonly cardinality: Cardinality;
  /** The attribute when the pattern has no `attr` group. */
  readonly attribute?: string;
  /** Who the claim is about when the pattern has no `subject` group. */
  readonly fixedSubject?: "first_person" | "team";
  /** The rule states the negation itself ("Maya left Acme": no longer works at Acme). */
  readonly negates?: boolean;
  /** A shape the value must have, checked on the original case ("moved to" needs a place name). */
  readonly value?: ValueShape;
  /**
   * Splits a scope off the value into the attribute: "prefers email for status updates" is the
   * claim "prefers for status updates" = "email". Groups: value, scope.
   */
  readonly scope?: RegExp;
  /** The attribute is a count of what it names: "has 50 seats" is the seat count. */
  readonly counts?: boolean;
  /** Subjects this rule never claims for: "Lara is the team's designer" is about Lara, not the team's designer. */
  readonly notForSubject?: string;
}

/** Shapes a value can be required to have (checked in claim.ts against the tables below). */
export type ValueShape = "proper" | "number" | "date" | "schedule" | "title" | "status";

/** One subject word: letters and digits, plus "&", "." and "-" for "AT&T", "Node.js", "on-call". */
const WORD = "[\\p{L}\\p{N}][\\p{L}\\p{N}\\p{M}&.-]{0,39}";
/**
 * One to four words, lazily, so "Priya now lives in" takes "Priya" and not "Priya now"; optionally
 * a possessive part ("Hooli's contract"), which claim.ts moves into the attribute ("contract end date").
 */
const SUBJECT = `(?<subject>(?:[Tt]he |[Oo]ur |[Mm]y )?${WORD}(?: ${WORD}){0,3}?(?:'s? ${WORD}(?: ${WORD})?)?)`;
/**
 * One to three attribute words, lazily, so "manager is Tom is" splits at the first "is", and an
 * "of" tail ("main point of contact").
 */
const ATTR = "(?<attr>\\p{L}[\\p{L}-]{0,29}(?: \\p{L}[\\p{L}-]{0,29}){0,2}?(?: of \\p{L}[\\p{L}-]{0,29})?)";
/** "is", "are", "was", "were", "=", ":" between attribute and value. */
const COPULA = "(?: (?:is|are|was|were)(?: now| currently| still| actually)?| ?[:=]) ";
/** "is" / "'s" / "are" after a subject ("Acme is", "Acme's", "we're"). */
const IS = "(?: is|'s| are|'re| am|'m| was)";
/** Adverbs that leave the claim unchanged: "Priya now lives in Oslo". */
const NOW = "(?:now |currently |still |officially |finally |just |recently |already |back )?";
/** The value: the rest of the sentence (bounded; cleanValue trims clauses off it). */
const VALUE = "(?<value>.{1,160})";
/** "the", "a", "an" before a value. */
const ARTICLE = "(?:the |a |an |our |their |its )?";

/** Job titles: a role claim needs one of these heads so "Maya is a friend of Tom" is not a role. */
const TITLE_HEAD = `(?:${[...TITLE_HEADS].map(escapeRegex).join("|")}|head of [\\p{L} ]{2,40})`;
/** Up to three words before the title head: "senior staff", "VP of", "head of". */
export const TITLE = new RegExp(`^(?:[\\p{L}&'-]{1,20} ){0,3}${TITLE_HEAD}(?: (?:of|at|for|on) .{1,80})?$`, "iu");

/** Statuses a project, company or account is in, one at a time. */
export const STATUS = new RegExp(`^(?:in (?:${[...STATUS_STAGES].map(escapeRegex).join("|")})|${[...STATUSES].map(escapeRegex).join("|")})$`, "iu");

const MONTH = "(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)";
const WEEKDAY = "(?:mon|tues|wednes|thurs|fri|satur|sun)day";
/** Words before a date that leave it the same date: "by the end of June", "early next week". */
const DATE_LEAD = "(?:(?:on|by|in|at|for|until|the end of|the start of|early|mid|late|end of|next|this) )*";
/** "the 5th", "the 1st of each month". */
const DAY_OF_MONTH = "(?:the )?\\d{1,2}(?:st|nd|rd|th)(?: of (?:the|each|every) month)?";
/** "May 1", "Sept. 3rd, 2026". */
const MONTH_DAY = `${MONTH}\\.?(?: \\d{1,2}(?:st|nd|rd|th)?)?(?:,? \\d{4})?`;
/** "1 May 2026", "3rd of June". */
const DAY_MONTH = `\\d{1,2}(?:st|nd|rd|th)? (?:of )?${MONTH}(?:,? \\d{4})?`;
/** "2026-05-01", "5/1", "5/1/26". */
const NUMERIC_DATE = "\\d{4}-\\d{2}-\\d{2}|\\d{1,2}/\\d{1,2}(?:/\\d{2,4})?";
/** "Q3", "H2 2026", "2027". */
const PART_OF_YEAR = "q[1-4](?: \\d{4})?|h[12](?: \\d{4})?|\\d{4}";
const RELATIVE_DATE = "week \\d{1,2}|tomorrow|today|next week|next month|next quarter|next year|the weekend";
/** A point in time: "May 1", "1 May 2026", "2026-05-01", "Q3", "next Friday", "the end of June". */
export const DATE = new RegExp(
  `^${DATE_LEAD}(?:${WEEKDAY},? )?${anyOf([DAY_OF_MONTH, MONTH_DAY, DAY_MONTH, NUMERIC_DATE, PART_OF_YEAR, WEEKDAY, RELATIVE_DATE])}$`,
  "iu",
);
const AM_PM = "[ap]\\.?m\\.?";
/** Words before a schedule that leave it the same schedule: "nightly at", "every other". */
const HOW_OFTEN = "(?:(?:nightly|daily|weekly|every day|every night|each night|each morning) )?";
const ON_EVERY = "(?:(?:on|at|every|each) (?:other |second |third )?)?";
/** "at 10", "mornings", "at noon". */
const PART_OF_DAY = "(?:at|mornings?|afternoons?|evenings?) ?[\\p{L}\\d:. ]{0,12}";
/** "the first Monday of the month". */
const NTH_WEEKDAY = `(?:the )?(?:first|second|third|fourth|last) ${WEEKDAY} of (?:the|each|every) month`;
/** "Tuesdays", "Mondays and Thursdays at 10", "Friday mornings", "Monday 9am". */
const WEEKDAYS_AT = `${WEEKDAY}s?(?: and ${WEEKDAY}s?)?(?: ${PART_OF_DAY}| \\d{1,2}(?::\\d{2})? ?${AM_PM})?`;
/** "9:30", "10am", "8:00 pm CET". */
const TIME_OF_DAY = `\\d{1,2}(?::\\d{2}(?: ?${AM_PM})?| ?${AM_PM})(?: [a-z]{2,4})?`;
const EVERY_PERIOD = "every (?:day|week|other week|two weeks|month|sprint|quarter)";
const RECURRENCE = `noon|midnight|weekdays|weekends|daily|weekly|biweekly|fortnightly|monthly|quarterly|${EVERY_PERIOD}`;
/** When something recurs or happens in a day: "Tuesdays", "every Monday", "9:30", "10am", "noon". */
export const SCHEDULE = new RegExp(`^${HOW_OFTEN}${ON_EVERY}${anyOf([NTH_WEEKDAY, WEEKDAYS_AT, TIME_OF_DAY, RECURRENCE])}$`, "iu");

const NUMBER_WORDS = "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve";
/** "1,200", "40k", "3.5 million", "two", "a dozen". */
const AMOUNT = `(?:\\d[\\d,.]*(?: ?(?:k|m|bn|million|billion|thousand|hundred))?|${NUMBER_WORDS}|a dozen)`;
const CURRENCY_AFTER = "(?: ?(?:usd|eur|gbp|dollars|euros|pounds|%|percent))?";
/** "/mo", "per seat", "a year". */
const PER_UNIT = "(?:\\/(?:mo|month|year|yr|seat|user))?(?: (?:a|per) (?:month|year|seat|user))?";
/** A regex literal, not a string, so the pattern's source has these signs as Bun writes a literal's: as \u escapes. */
const CURRENCY_SIGN = /[$€£¥]?/.source;
/** A count or an amount: "50", "1,200", "$40k", "€3.5 million", "two". */
export const NUMBER = new RegExp(`^(?:about |around |roughly |over |under )?${CURRENCY_SIGN}${AMOUNT}${CURRENCY_AFTER}${PER_UNIT}$`, "iu");

/** A person's name, capitalised words: "Hank Scorpio". */
const PERSON = "\\p{Lu}[\\p{L}.'-]{0,30}(?: \\p{Lu}[\\p{L}.'-]{0,30}){0,3}";
/** Leaving a role. */
const STEPPED_DOWN = "(?:has )?(?:stepped down|resigned|retired|stepped aside)";
/** A role held at an organisation: "CEO", "head of sales", "tech lead". */
const ROLE = `(?:CEO|CTO|CFO|COO|CMO|CIO|CISO|CPO|CRO|VP|SVP|EVP|(?:\\p{Ll}[\\p{L}-]{0,20} ){0,2}${TITLE_HEAD})`;
/** Kinds of leave: one at a time. */
const LEAVE = "(?:[\\p{Ll}-]{2,20} ){0,2}(?:leave|sabbatical|vacation|holiday|furlough)";
/** "the", "a" or a possessive before a value: "on her parental leave". */
const ARTICLE_OR_OWN = "(?:a |an |the |his |her |their |my )?";
/** A length of time: "12-month", "two years" (claim.ts writes both as "12 months"). Groups: count, unit. */
const DURATION_WORDS = `(?<count>\\d{1,3}|${NUMBER_WORDS})[- ](?<unit>day|week|month|year)s?`;
export const DURATION = new RegExp(`^${DURATION_WORDS}$`, "u");
/** A range of hours: "9 to 5", "10am-6pm", "8:30 until 4:30". */
const HOUR = "\\d{1,2}(?::\\d{2})?(?: ?[ap]\\.?m\\.?)?";
const HOURS = `${HOUR} ?(?:to|-|–|until|till) ?${HOUR}`;
const LIVES = anyOf([
  "lives?",
  "is living",
  "living",
  "resides?",
  "works remotely",
  "is working remotely",
  "works remotely",
  "is based",
  "'s based",
  "are based",
  "am based",
  "based",
  "is located",
  "'s located",
  "is headquartered",
  "'s headquartered",
  "are headquartered",
  "headquartered",
]);
const MOVED = "(?:(?:has |have )?(?:moved|relocated))";
const DATE_ATTRIBUTES = [
  "launch",
  "release",
  "go-live",
  "kickoff",
  "kick-off",
  "deadline",
  "due date",
  "delivery",
  "delivery date",
  "renewal",
  "renewal date",
  "launch date",
  "release date",
  "ship date",
  "start date",
  "end date",
  "cutover",
  "cutover date",
  "go-live date",
  "target date",
  "demo",
  "demo date",
];
const DATE_ATTR = `(?<attr>${DATE_ATTRIBUTES.join("|")})`;
const DATE_SHIFT_VERB = anyOf([
  "moved",
  "pushed",
  "pushed back",
  "pushed out",
  "delayed",
  "rescheduled",
  "postponed",
  "slipped",
  "set",
  "scheduled",
  "planned",
  "brought forward",
  "moved up",
  "changed",
  "shifted",
  "extended",
  "confirmed",
]);
const SHIFTED = `(?:is |was |has been |got |just )?${DATE_SHIFT_VERB} (?:back )?(?:to|for|until|till) `;
/** Verbs of a value changing: "changed", "was raised", "slipped". */
const SHIFT_VERB = anyOf([
  "changed",
  "moved",
  "switched",
  "went up",
  "went down",
  "rose",
  "fell",
  "dropped",
  "increased",
  "decreased",
  "grew",
  "shrank",
  "slipped",
  "raised",
  "lowered",
  "bumped(?: up)?",
  "cut",
  "pushed(?: back| out)?",
  "extended",
  "renamed",
  "updated",
  "reduced",
  "upgraded",
  "downgraded",
  "set",
  "migrated",
  "rescheduled",
  "postponed",
  "delayed",
  "shifted",
  "brought forward",
  "moved up",
  "expanded",
  "jumped",
  "climbed",
  "doubled",
  "halved",
  "revised",
  "adjusted",
  "reassigned",
  "transferred",
  "handed over",
  "went",
]);
/** "changed to", "slipped back to", "moved into". */
const SHIFT_TO = `${SHIFT_VERB} (?:back )?(?:to|until|till|into) `;
/** A value changing: "changed to", "was raised to", "slipped to", "moved to". */
const SHIFT = `(?:has |have |was |were |has been |have been |got |just |is being )?${SHIFT_TO}`;
/** Events a thing has one date for: "the API v1 deprecation", "the Atlas launch". */
const EVENT_NOUN = "deprecation|sunset|launch|release|migration|go-live|kickoff|code freeze|feature freeze";
const MONEY_ATTR = "(?<attr>budget|price|cost|salary|rate|fee|valuation|revenue|arr|mrr|pricing|contract value)";
const MONEY_SHIFT_VERB = anyOf([
  "raised",
  "increased",
  "cut",
  "reduced",
  "lowered",
  "dropped",
  "bumped",
  "changed",
  "set",
  "adjusted",
  "revised",
  "went up",
  "went down",
  "rose",
  "fell",
  "grew",
  "doubled",
  "updated",
  "bumped up",
]);
const MONEY_SHIFT = `(?:was |has been |got |just )?${MONEY_SHIFT_VERB} (?:to|at) `;

const OTHER_RULE_WORDS = "due|scheduled|set|expected|planned|slated|based|located|headquartered|owned|managed|led|run|maintained|married|engaged";
/**
 * A possessive rule whose "value" starts with one of these is really another rule's sentence:
 * "Contoso's invoice is due on the 1st" is a due date, not the invoice's value, and "Blue Sun's
 * rate limit was raised to 5,000" is the shifted rate limit, not the value "raised to 5,000".
 */
export const NOT_VALUE_START = new RegExp(`^(?:${OTHER_RULE_WORDS}|on (?:the |a |an )?[\\p{L}\\d+ -]{1,40} (?:plan|tier)$|${SHIFT_TO})`, "iu");

/** Attributes that end a compound subject: "the Atlas launch date", "the search service owner". */
const COMPOUND_ATTRIBUTES = [
  "launch date",
  "release date",
  "due date",
  "deadline",
  "budget",
  "owner",
  "status",
  "price",
  "renewal date",
  "start date",
  "end date",
  "go-live date",
  "target date",
  "plan",
  "headcount",
  "seat count",
  "time zone",
  "timezone",
  "lead",
  "manager",
  "version",
  "stage",
  "priority",
  "tier",
  "kickoff date",
  "ship date",
  "length",
  "duration",
  "cadence",
  "frequency",
  "capacity",
  "limit",
  "size",
  "region",
  "url",
  "domain",
  "runtime",
  "database",
  "host",
  "provider",
  "vendor",
  "code freeze",
  "feature freeze",
];
/** A collective subject that moves a meeting or an event: "We've", "The team", "They have". */
const WE_HAVE = "(?:[Ww]e|[Tt]he team|[Tt]hey)(?:'ve| have)? ";
const EVENT_SHIFT_VERB = "(?:moved|rescheduled|shifted|changed|pushed|postponed|delayed|brought forward|moved up)";
/** Verbs before a count: "has 50 seats", "employs 200 people". */
const HAS_COUNT = "has|have|employs|pays for|is paying for|is licensed for|licenses|licences|runs|operates|manages|requires|require|needs|need";
/** A count that changed: "grew to 60", "dropped from 50 to 40". */
const COUNT_CHANGED_TO = "(?:dropped|grew|went up|went down|expanded|shrank|increased|decreased|is down|is up|fell|rose|jumped|climbed)(?: from \\S{1,20})? to";
const COUNT_VALUE = "(?<value>\\S{1,20}(?: (?:million|thousand|hundred))?)";
/** "changed its domain", "cut headcount". */
const CHANGED_OWN = anyOf([
  "changed",
  "moved",
  "switched",
  "updated",
  "renamed",
  "raised",
  "lowered",
  "cut",
  "increased",
  "reduced",
  "upgraded",
  "downgraded",
  "migrated",
  "bumped",
  "extended",
  "pushed",
  "set",
  "reset",
  "dropped",
  "grew",
  "expanded",
  "shrank",
  "doubled",
  "halved",
]);
/** How a recurring thing is said to happen: "is held", "takes place", "ships", "was moved to". */
const HAPPENS = anyOf([
  "(?:is |are |was |were )?(?:held|scheduled|planned|run|done|released|deployed|published|sent)",
  "happens?",
  "takes? place",
  "runs?",
  "meets?",
  "ships?",
  "go(?:es)? out",
  "occurs?",
  "deploys?",
  "release",
  "releases",
  "gets released",
  "get released",
  "starts?",
  "begins?",
  "(?:was |were |has been |got )?(?:moved|changed|shifted|switched|rescheduled|pushed|bumped) (?:back )?to",
]);
const TEAM_MOVE = "(?:moved|switched|transferred|was moved|was transferred|joined|rotated) (?:to|onto|into)?";
const TEAM_NOUN = "(?:team|squad|group|pod|department|org)";
const REPRIORITIZED = "(?:was |has been |got )?(?:escalated|bumped|raised|lowered|downgraded|deprioritized|reprioritized|moved|set|changed) to";
const PRIORITY_LEVEL = "(?<value>[Pp][0-4]|[Ss]ev ?[0-4]|[Ss][0-4])";
/** What happened to an account or a project, as its status: "churned", "was paused". */
const STATUS_EVENTS = [
  "churned",
  "resumed",
  "launched",
  "shipped",
  "stalled",
  "went live",
  "was cancell?ed",
  "was paused",
  "was approved",
  "was rejected",
  "was archived",
  "was deprecated",
  "was completed",
  "was sunset",
  "was sunsetted",
  "converted to (?:a |an )?[\\p{L} -]{2,30}",
];
const JOINED = anyOf([
  "joined",
  "has joined",
  "started at",
  "has started at",
  "started working at",
  "is employed (?:at|by)",
  "was hired by",
  "got hired at",
  "got a job at",
  "took a job at",
  "left for",
]);
/** A plan by name: "the business plan", "an enterprise tier". */
const PLAN_NAME = `${ARTICLE}(?<value>[\\p{L}\\d+ -]{1,40}?) (?:plan|tier|subscription|package|edition)`;
const PLAN_CHANGE = "(?:upgraded|downgraded|switched|moved|changed|migrated|converted)(?: (?:its|their) plan)?";
/** Verbs that say when a thing happens, named as its date: "launches" is the launch date. */
const DATED_VERBS = [
  "launch",
  "launches",
  "release",
  "releases",
  "ship",
  "ships",
  "go live",
  "goes live",
  "go-live",
  "renew",
  "renews",
  "kick off",
  "kicks off",
  "start",
  "starts",
  "begin",
  "begins",
  "end",
  "ends",
  "wrap up",
  "wraps up",
  "close",
  "closes",
  "expire",
  "expires",
  "open",
  "opens",
  "land",
  "lands",
  "is launching",
  "is releasing",
  "is shipping",
  "is renewing",
  "is up for renewal",
];
const COSTS = anyOf([
  "costs",
  "will cost",
  "would cost",
  "is priced at",
  "sells for",
  "is sold for",
  "goes for",
  "is billed at",
  "charges",
  "pays",
  "is paying",
  "now pays",
]);
/** Taking on a role: "was promoted to", "took over as". */
const BECAME = anyOf([
  "promoted to",
  "named",
  "appointed",
  "became",
  "becomes",
  "works as",
  "is working as",
  "now works as",
  "stepped up as",
  "took over as",
  "was hired as",
  "joined as",
]);
const CONTRACT_NOUN = "(?:contract|term|agreement|commitment|deal)";
/** Verbs that put a thing into a status: "went into beta", "has reached GA". */
const INTO_STATUS = [" has been", " have been", " went", " moved to", " moved into", " went into", " moved back to", " is now in", " has reached", " reached"];

/** Statement rules, in precedence order. */
export const CLAIM_RULES: readonly ClaimRule[] = [
  // "Priya's manager is Tom", "Acme's renewal date is May 1", "The team's on-call day is Monday".
  { name: "possessive_attribute", cardinality: "one", pattern: new RegExp(`^${SUBJECT}'s? ${ATTR}${COPULA}${VALUE}$`, "u") },
  // "My manager is Tom": first person, about the end user or the speaker.
  { name: "my_attribute", cardinality: "one", pattern: new RegExp(`^[Mm]y ${ATTR}${COPULA}${VALUE}$`, "u"), fixedSubject: "first_person" },
  // "The manager of Priya is Tom", "The deadline for Atlas is May 1".
  { name: "attribute_of", cardinality: "one", pattern: new RegExp(`^[Tt]he ${ATTR} (?:of|for) ${SUBJECT}${COPULA}${VALUE}$`, "u") },
  // "The Atlas launch date is March 3": a compound noun whose tail is a known attribute.
  {
    name: "compound_attribute",
    cardinality: "one",
    pattern: new RegExp(`^(?:[Tt]he )?${SUBJECT} (?<attr>${COMPOUND_ATTRIBUTES.join("|")})${COPULA}${VALUE}$`, "u"),
  },
  // "Signe is now the ledger service's maintainer": the value comes first.
  {
    name: "value_is_possessive",
    cardinality: "one",
    notForSubject: "team",
    pattern: new RegExp(`^(?<value>\\p{Lu}[\\p{L}.' -]{0,40}?) (?:is|are) ${NOW}(?:the )?${SUBJECT}'s? ${ATTR}$`, "u"),
  },
  // "We moved the weekly sync to 15:30": the thing moved is the subject.
  {
    name: "moved_thing",
    cardinality: "one",
    attribute: "schedule",
    value: "schedule",
    pattern: new RegExp(`^${WE_HAVE}${NOW}(?:moved|rescheduled|shifted|changed|pushed|switched) (?:the |our )${SUBJECT} (?:back )?to (?<value>.{1,60})$`, "u"),
  },
  // "The team pushed the API v1 deprecation to September 1": the event's date, as a decision to
  // "deprecate API v1 on June 1" keys it.
  {
    name: "moved_event",
    cardinality: "one",
    value: "date",
    pattern: new RegExp(
      `^${WE_HAVE}${NOW}${EVENT_SHIFT_VERB}(?: back)? (?:the |our )${SUBJECT} (?<attr>${EVENT_NOUN}) (?:back )?(?:to|until) (?<value>.{1,60})$`,
      "u",
    ),
  },
  // Counts: "Acme has 50 seats", "Globex employs 200 people".
  {
    name: "count",
    counts: true,
    cardinality: "one",
    value: "number",
    pattern: new RegExp(
      `^${SUBJECT} ${NOW}(?:${HAS_COUNT}|${COUNT_CHANGED_TO}) ${COUNT_VALUE} (?:active |paid |full-time |licensed )?(?<attr>[\\p{L}-]{2,20})$`,
      "u",
    ),
  },
  // A value changed: "Mateo's address changed to 48 Oak Avenue", "My email changed to ...".
  { name: "possessive_shifted", cardinality: "one", pattern: new RegExp(`^${SUBJECT}'s? ${ATTR} ${SHIFT}${VALUE}$`, "u") },
  { name: "my_shifted", cardinality: "one", fixedSubject: "first_person", pattern: new RegExp(`^[Mm]y ${ATTR} ${SHIFT}${VALUE}$`, "u") },
  { name: "our_shifted", cardinality: "one", fixedSubject: "team", pattern: new RegExp(`^[Oo]ur ${ATTR} ${SHIFT}${VALUE}$`, "u") },
  { name: "attribute_of_shifted", cardinality: "one", pattern: new RegExp(`^[Tt]he ${ATTR} (?:of|for) ${SUBJECT} ${SHIFT}${VALUE}$`, "u") },
  // "Initech changed its domain to initech.io", "Acme Corp cut headcount to 240".
  {
    name: "changed_own_attribute",
    cardinality: "one",
    pattern: new RegExp(`^${SUBJECT} ${NOW}(?:has |have )?${CHANGED_OWN} (?:(?:his|her|their|its|our|my|the) )?${ATTR} (?:from .{1,40}? )?to ${VALUE}$`, "u"),
  },
  {
    name: "date_shifted",
    cardinality: "one",
    value: "date",
    pattern: new RegExp(`^(?:[Tt]he )?${SUBJECT}(?:'s)? ${DATE_ATTR}(?: date)? ${SHIFTED}${VALUE}$`, "iu"),
  },
  {
    name: "money_shifted",
    cardinality: "one",
    value: "number",
    pattern: new RegExp(`^(?:[Tt]he )?${SUBJECT}(?:'s)? ${MONEY_ATTR} ${MONEY_SHIFT}${VALUE}$`, "iu"),
  },
  // Recurring schedules: "Releases ship on Tuesdays", "The standup is at 9:30", "Standup moved to 10:00".
  {
    name: "schedule",
    cardinality: "one",
    attribute: "schedule",
    value: "schedule",
    pattern: new RegExp(`^(?:[Tt]he |[Oo]ur )?${SUBJECT}(?:${IS}(?: now| currently| still)?| ${NOW}${HAPPENS}) (?<value>.{1,60})$`, "u"),
  },
  // "Our standup time is 9:30": the team's attribute.
  { name: "our_attribute", cardinality: "one", pattern: new RegExp(`^[Oo]ur ${ATTR}${COPULA}${VALUE}$`, "u"), fixedSubject: "team" },
  // A team: "Hiro is on the payments team", "Hiro moved to the search team".
  {
    name: "on_team",
    cardinality: "one",
    attribute: "team",
    pattern: new RegExp(`^${SUBJECT}(?:${IS} ${NOW}(?:on|in|part of)| ${NOW}${TEAM_MOVE}) the (?<value>[\\p{L}\\d& -]{1,40}?) ${TEAM_NOUN}$`, "u"),
  },
  // "The mobile app is on version 2.4", "The rollout is at 50%".
  {
    name: "version",
    cardinality: "one",
    attribute: "version",
    pattern: new RegExp(`^(?:[Tt]he )?${SUBJECT}${IS} ${NOW}on (?:version |v(?=\\d))(?<value>[\\w.-]{1,20})$`, "u"),
  },
  { name: "level", cardinality: "one", attribute: "level", value: "number", pattern: new RegExp(`^(?:[Tt]he )?${SUBJECT}${IS} ${NOW}at ${VALUE}$`, "u") },
  // A dated thing: "The milestone review is on the 5th", "Sprint 14 was pushed to April 15".
  {
    name: "dated_thing",
    cardinality: "one",
    attribute: "date",
    value: "date",
    pattern: new RegExp(`^(?:[Tt]he )?${SUBJECT}${IS} ${NOW}(?:on|scheduled for|set for|planned for|slated for) ${VALUE}$`, "u"),
  },
  {
    name: "thing_extended",
    cardinality: "one",
    attribute: "end date",
    value: "date",
    pattern: new RegExp(`^(?:[Tt]he )?${SUBJECT} (?:was |has been |got )?extended (?:to|until|till|through) ${VALUE}$`, "u"),
  },
  { name: "thing_shifted", cardinality: "one", attribute: "date", value: "date", pattern: new RegExp(`^(?:[Tt]he )?${SUBJECT} ${SHIFT}${VALUE}$`, "u") },
  // "Project Kite was escalated to P0": a priority by its shape.
  {
    name: "priority",
    cardinality: "one",
    attribute: "priority",
    pattern: new RegExp(`^(?:[Tt]he )?${SUBJECT}(?:${IS}| ${REPRIORITIZED}) ${NOW}(?:a )?${PRIORITY_LEVEL}(?: priority)?$`, "u"),
  },
  // "Tyrell Systems is a Series A startup", "is now at Series B".
  {
    name: "funding_stage",
    cardinality: "one",
    attribute: "funding stage",
    pattern: new RegExp(
      `^${SUBJECT}${IS} ${NOW}(?:at |in |a |an )?(?<value>(?:[Ss]eries [A-H]|[Ss]eed|[Pp]re-seed|[Ss]eed-stage))(?: startup| company| stage| round)?$`,
      "u",
    ),
  },
  // "Dunder Mifflin churned", "Kestrel Labs converted to a paid customer", "Atlas resumed".
  {
    name: "status_verb",
    cardinality: "one",
    attribute: "status",
    pattern: new RegExp(`^(?:[Tt]he )?${SUBJECT} ${NOW}(?:has |have )?(?<value>${STATUS_EVENTS.join("|")})$`, "u"),
  },
  // Where someone lives or something is based: "Priya lives in Lisbon", "Acme is headquartered in Austin".
  {
    name: "lives_in",
    cardinality: "one",
    attribute: "location",
    value: "proper",
    pattern: new RegExp(`^${SUBJECT} ${NOW}${LIVES} (?:in|out of|from) ${VALUE}$`, "u"),
  },
  // "Priya moved to Berlin", "Acme relocated its headquarters to Austin".
  // "Apollo sprint planning moved to Tuesday 2pm": a recurring time, not a place.
  {
    name: "moved_to_time",
    cardinality: "one",
    value: "schedule",
    pattern: new RegExp(`^${SUBJECT} ${NOW}(?:moved|was moved|has moved|got moved|shifted|changed) (?:back )?to ${VALUE}$`, "u"),
  },
  {
    name: "moved_to",
    cardinality: "one",
    attribute: "location",
    value: "proper",
    pattern: new RegExp(
      `^${SUBJECT} ${NOW}${MOVED}(?: (?:its|their|his|her) (?:headquarters|hq|HQ|head office|home|family))?(?: from .{1,60}?)? (?:back )?to ${VALUE}$`,
      "u",
    ),
  },
  // Employer: "Priya works at Acme", "Tom joined Globex", "Ana is employed by Initech".
  {
    name: "works_at",
    cardinality: "one",
    attribute: "employer",
    value: "proper",
    pattern: new RegExp(`^${SUBJECT}${IS}? ${NOW}(?:works?|is working|working) (?:at|for) ${VALUE}$`, "u"),
  },
  {
    name: "joined",
    cardinality: "one",
    attribute: "employer",
    value: "proper",
    pattern: new RegExp(`^${SUBJECT} ${NOW}${JOINED} ${VALUE}$`, "u"),
  },
  // "Maya left Acme": she no longer works there.
  {
    name: "left_employer",
    cardinality: "one",
    attribute: "employer",
    value: "proper",
    negates: true,
    pattern: new RegExp(`^${SUBJECT} ${NOW}(?:has )?(?:left|quit|resigned from) ${VALUE}$`, "u"),
  },
  // "Priya reports to Tom" is the same claim as "Priya's manager is Tom".
  {
    name: "reports_to",
    cardinality: "one",
    attribute: "manager",
    pattern: new RegExp(`^${SUBJECT} ${NOW}(?:reports?|is reporting|reporting) (?:directly )?to ${VALUE}$`, "u"),
  },
  { name: "managed_by", cardinality: "one", attribute: "manager", pattern: new RegExp(`^${SUBJECT}${IS} ${NOW}managed by ${VALUE}$`, "u") },
  // Ownership and leadership of a thing: "The billing service is owned by Ana", "Atlas is led by Tom".
  {
    name: "owned_by",
    cardinality: "one",
    attribute: "owner",
    pattern: new RegExp(`^(?:[Tt]he )?${SUBJECT}${IS} ${NOW}(?:owned|maintained|run|acquired|bought) by ${VALUE}$`, "u"),
  },
  {
    name: "sold_to",
    cardinality: "one",
    attribute: "owner",
    pattern: new RegExp(`^(?:[Tt]he )?${SUBJECT} (?:was |has been |got )?(?:sold|transferred|handed over) to ${VALUE}$`, "u"),
  },
  { name: "led_by", cardinality: "one", attribute: "lead", pattern: new RegExp(`^(?:[Tt]he )?${SUBJECT}${IS} ${NOW}(?:led|headed|driven) by ${VALUE}$`, "u") },
  // Partner: "Priya is married to Sam", "Tom is dating Lee".
  {
    name: "partner",
    cardinality: "one",
    attribute: "partner",
    pattern: new RegExp(
      `^${SUBJECT}${IS}? ${NOW}(?:married to|married|engaged to|got engaged to|got married to|dating|in a relationship with|partnered with|seeing) ${VALUE}$`,
      "u",
    ),
  },
  // Age: "Tom is 34", "Tom turned 35", "Acme is 20 years old".
  {
    name: "age",
    cardinality: "one",
    attribute: "age",
    pattern: new RegExp(`^${SUBJECT}(?:${IS}| turned| just turned| has turned) ${NOW}(?<value>\\d{1,3})(?: years old| years of age| yo| this year)?$`, "u"),
  },
  { name: "born_on", cardinality: "one", attribute: "birthday", value: "date", pattern: new RegExp(`^${SUBJECT} was born on ${VALUE}$`, "u") },
  { name: "reached_at", cardinality: "one", attribute: "contact", pattern: new RegExp(`^${SUBJECT} can (?:now )?be reached (?:at|on|via) ${VALUE}$`, "u") },
  {
    name: "time_zone",
    cardinality: "one",
    attribute: "time zone",
    pattern: new RegExp(`^${SUBJECT}${IS}? ${NOW}(?:in|on|works in|lives in) (?:the )?(?<value>[\\p{L}\\d/_ +:-]{2,30}?) time ?zone$`, "u"),
  },
  {
    name: "on_utc",
    cardinality: "one",
    attribute: "time zone",
    pattern: new RegExp(`^${SUBJECT}${IS} ${NOW}on (?<value>(?:UTC|GMT|utc|gmt)(?:[+-]\\d{1,2}(?::\\d{2})?)?|[A-Z]{2,5}T)$`, "u"),
  },
  // Plan: "Acme is on the starter plan", "Acme upgraded to the business plan".
  {
    name: "on_plan",
    cardinality: "one",
    attribute: "plan",
    pattern: new RegExp(`^${SUBJECT}${IS} ${NOW}(?:on|subscribed to) ${PLAN_NAME}$`, "u"),
  },
  {
    name: "changed_plan",
    cardinality: "one",
    attribute: "plan",
    pattern: new RegExp(`^${SUBJECT} ${NOW}(?:has |have )?${PLAN_CHANGE}(?: from .{1,40}?)? to ${PLAN_NAME}$`, "u"),
  },
  // Dates by verb: "Atlas launches on May 1", "Acme renews in March", "The report is due Friday".
  {
    name: "due",
    cardinality: "one",
    attribute: "due date",
    value: "date",
    pattern: new RegExp(`^(?:[Tt]he )?${SUBJECT}${IS} ${NOW}(?:due|expected|needed|scheduled to be done) ${VALUE}$`, "u"),
  },
  {
    name: "dated_verb",
    cardinality: "one",
    value: "date",
    pattern: new RegExp(
      `^(?:[Tt]he )?${SUBJECT}(?:${IS} (?:scheduled|set|planned|expected|slated|due) to| will|'ll)? ${NOW}(?<attr>${DATED_VERBS.join("|")}) ${VALUE}$`,
      "u",
    ),
  },
  // Money: "Pro costs $49 a month", "Atlas has a budget of $40k", "Maya earns $120k".
  {
    name: "costs",
    cardinality: "one",
    attribute: "price",
    value: "number",
    pattern: new RegExp(`^(?:[Tt]he )?${SUBJECT}(?: now| currently)? ${COSTS} ${VALUE}$`, "u"),
  },
  {
    name: "budget_of",
    cardinality: "one",
    attribute: "budget",
    value: "number",
    pattern: new RegExp(`^(?:[Tt]he )?${SUBJECT} ${NOW}has a budget of ${VALUE}$`, "u"),
  },
  {
    name: "earns",
    cardinality: "one",
    attribute: "salary",
    value: "number",
    pattern: new RegExp(`^${SUBJECT} ${NOW}(?:earns|makes|is paid|gets paid) ${VALUE}$`, "u"),
  },
  {
    name: "promoted",
    cardinality: "one",
    attribute: "role",
    value: "title",
    pattern: new RegExp(`^${SUBJECT} ${NOW}(?:was |has been |got |just got )?${BECAME}(?: the| a| an)? ${VALUE}$`, "u"),
  },
  // "Hank Scorpio stepped down as Globex CEO": Globex's CEO is no longer Hank Scorpio.
  {
    name: "stepped_down",
    cardinality: "one",
    value: "proper",
    negates: true,
    pattern: new RegExp(`^(?<value>${PERSON}) ${STEPPED_DOWN} as (?:the )?${SUBJECT}(?:'s?)? (?<attr>${ROLE})$`, "u"),
  },
  {
    name: "stepped_down_of",
    cardinality: "one",
    value: "proper",
    negates: true,
    pattern: new RegExp(`^(?<value>${PERSON}) ${STEPPED_DOWN} as (?:the )?(?<attr>${ROLE}) (?:of|at) ${SUBJECT}$`, "u"),
  },
  // "Iris is on parental leave" (not "went on": a trip taken is history); "Iris is back from
  // parental leave" is its negation (NEGATION_FOLDS).
  { name: "on_leave", cardinality: "one", attribute: "leave", pattern: new RegExp(`^${SUBJECT}${IS} ${NOW}on ${ARTICLE_OR_OWN}(?<value>${LEAVE})$`, "u") },
  // "Vandelay Industries is on a 12-month contract": the contract term, as "contract term is 24 months" says.
  {
    name: "contract_term",
    cardinality: "one",
    attribute: "contract term",
    pattern: new RegExp(
      `^${SUBJECT}(?:${IS} ${NOW}on| ${NOW}(?:signed|renewed for|is signed for)) (?:a |an )(?<value>${DURATION_WORDS}) ${CONTRACT_NOUN}$`,
      "u",
    ),
  },
  // "Helen works 10 to 6": her working hours.
  { name: "working_hours", cardinality: "one", attribute: "working hours", pattern: new RegExp(`^${SUBJECT} ${NOW}works? (?:from )?(?<value>${HOURS})$`, "u") },
  // A job title: "Maya is the CFO of Acme", "Tom was promoted to senior engineer".
  { name: "title", cardinality: "one", attribute: "role", value: "title", pattern: new RegExp(`^${SUBJECT}${IS} ${NOW}(?:the |a |an |our )?${VALUE}$`, "u") },
  // A status: "Atlas is in beta", "Acme's account is on hold".
  {
    name: "status",
    cardinality: "one",
    attribute: "status",
    value: "status",
    pattern: new RegExp(`^(?:[Tt]he )?${SUBJECT}(?:${IS}|${INTO_STATUS.join("|")}) ${NOW}${VALUE}$`, "u"),
  },
];

/**
 * Relations that hold many values at once. A fact adds a value; it replaces one only when it is
 * the negation of the same relation and object ("Sam no longer plays the guitar"). Forms are
 * every inflection the negation folding can leave: "plays", "play", "playing". Verbs of one
 * family share a relation, so "stopped liking jazz" ends "loves jazz" too.
 */
export interface Relation extends Rule {
  readonly forms: readonly string[];
  /** A preference: "prefers A over B" and "prefers A for X" hold one answer (see preferenceClaim). */
  readonly preference?: boolean;
}

function relation(name: string, forms: readonly string[], preference = false): Relation {
  const verbs = [...forms]
    .sort((a, b) => b.length - a.length)
    .map(escapeRegex)
    .join("|");
  return { name, forms, preference, pattern: new RegExp(`^${SUBJECT}(?:'s|'re|'m)? ${NOW}(?:${verbs}) (?<value>.{1,160})$`, "u") };
}

export const RELATIONS: readonly Relation[] = [
  relation("likes", [
    "likes",
    "like",
    "liking",
    "loves",
    "love",
    "loving",
    "enjoys",
    "enjoy",
    "enjoying",
    "adores",
    "adore",
    "is into",
    "are into",
    "am into",
    "into",
    "is a fan of",
    "is a big fan of",
    "a fan of",
  ]),
  relation("dislikes", ["dislikes", "dislike", "hates", "hate", "can't stand", "detests", "detest"]),
  relation("speaks", ["speaks", "speak", "speaking", "is fluent in", "fluent in"]),
  relation("owns", ["owns", "own", "owning", "has a", "has an", "have a", "have an", "having a"]),
  relation("visited", ["has visited", "visited", "has been to", "visits", "visit"]),
  relation("allergic to", ["is allergic to", "are allergic to", "am allergic to", "allergic to"]),
  relation("uses", ["uses", "use", "using", "is using", "relies on", "rely on", "relying on"]),
  relation("plays", ["plays", "play", "playing", "is playing"]),
  relation("reads", ["reads", "read", "reading", "is reading"]),
  relation("watches", ["watches", "watch", "watching", "is watching"]),
  relation("collects", ["collects", "collect", "collecting"]),
  relation("friends with", ["is friends with", "are friends with", "friends with", "is a friend of", "is close friends with"]),
  relation("works with", ["works with", "work with", "working with", "collaborates with", "collaborate with", "collaborating with"]),
  relation("knows", ["knows", "know", "knowing"]),
  relation("learns", ["is learning", "learning", "learns", "learn", "studies", "study", "studying", "is studying"]),
  relation("follows", ["follows", "follow", "following"]),
  relation("drinks", ["drinks", "drink", "drinking"]),
  relation("eats", ["eats", "eat", "eating"]),
  relation("volunteers", ["volunteers at", "volunteers with", "volunteer at", "volunteering at", "volunteer with", "volunteering with"]),
  relation("supports", ["supports", "support", "supporting", "roots for"]),
  relation("member of", ["is a member of", "a member of", "belongs to", "belong to"]),
  relation("practices", ["practices", "practice", "practicing", "practising"]),
  relation("prefers", ["prefers", "prefer", "preferring"], true),
  relation("wears", ["wears", "wear", "wearing"]),
  relation("attends", ["attends", "attend", "attending"]),
  relation("teaches", ["teaches", "teach", "teaching"]),
  relation("writes", ["writes", "write", "writing"]),
  relation("listens to", ["listens to", "listen to", "listening to"]),
  relation("cooks", ["cooks", "cook", "cooking", "bakes", "bake", "baking"]),
  relation("subscribes to", ["subscribes to", "subscribe to", "is subscribed to", "subscribed to"]),
  relation("goes", ["goes", "go", "going"]),
];

/**
 * Values that exclude each other: a subject holds one of each class at a time, so "Tess switched
 * to dark mode" replaces "Tess uses light mode" though neither names the attribute. A fact claims
 * a class only when it names exactly one of its values (as whole words) and no rule above made a
 * claim; an attribute claim on one of the class's attributes ("Cyberdyne's support tier is
 * standard") is keyed by the class too. General knowledge, not sentences: add a class when its
 * values truly exclude each other.
 */
export interface ValueClass {
  readonly name: string;
  /** Canonical value -> the words that name it. */
  readonly values?: Readonly<Record<string, readonly string[]>>;
  /** For open sets (version numbers, region codes): a pattern whose `value` group is the value (each match counts). */
  readonly pattern?: RegExp;
  /** Attributes that hold this class's value: "Aiden's OS is Windows" claims what "Aiden uses Windows" does. */
  readonly attributes?: readonly string[];
  /** What the sentence must also say, when the values alone are common words ("tabs") or mere mentions ("an outage in us-east-1"). */
  readonly context?: RegExp;
  /** What the sentence must not say: "part-time at the University" is one job's hours, not the person's. */
  readonly unless?: RegExp;
}

/** Verbs that put a service on a runtime or in a region: "runs on Node 18", "was moved to eu-west-1". */
const RUNS_ON =
  /\b(?:runs?|running|ran|is on|are on|was on|upgraded|downgraded|migrated|moved|switched|uses|using|built on|pinned|deployed|hosted|targets)\b/iu;
const COMPASS_POINT = "(?:east|west|north|south|central|northeast|northwest|southeast|southwest)";
/** AWS and Azure style: "us-east-1", "EU-West", "us-gov-west-1". */
const AWS_REGION = `(?:us|eu|ap|ca|sa|me|af|il|mx|cn)(?:-gov)?-${COMPASS_POINT}(?:-\\d)?`;
/** GCP style: "europe-west1". */
const GCP_REGION = `(?:us|europe|asia|australia|northamerica|southamerica|me|africa)-${COMPASS_POINT}\\d`;
/** A runtime's version: "Node 18", "Node.js 20.11", "Python 3.12". Group: value. */
const version = (names: string, number: string): RegExp => new RegExp(`(?<![\\p{L}\\p{N}-])(?:${names}) ?v?(?<value>${number})(?![\\p{L}\\p{N}]|\\.\\d)`, "iu");

export const VALUE_CLASSES: readonly ValueClass[] = [
  {
    name: "operating system",
    attributes: ["os", "operating system", "laptop", "computer", "machine"],
    values: { windows: ["windows"], macos: ["macos", "mac os", "os x"], linux: ["linux", "ubuntu", "fedora", "debian"], chromeos: ["chromeos", "chrome os"] },
  },
  { name: "color scheme", attributes: ["theme", "color scheme"], values: { light: ["light mode", "light theme"], dark: ["dark mode", "dark theme"] } },
  {
    name: "billing cycle",
    attributes: ["billing cycle", "billing frequency"],
    values: {
      monthly: ["billed monthly", "monthly billing"],
      annual: ["billed annually", "billed yearly", "annual billing", "yearly billing"],
      quarterly: ["billed quarterly", "quarterly billing"],
    },
  },
  {
    name: "employment type",
    attributes: ["employment type", "employment status", "role", "status"],
    unless: / (?:at|for|with) (?:the )?\p{Lu}/u,
    values: {
      "part-time": ["part-time", "part time"],
      "full-time": ["full-time", "full time"],
      freelance: ["freelance", "freelancer"],
      contractor: ["contractor", "contract worker"],
    },
  },
  {
    name: "pronouns",
    attributes: ["pronouns"],
    values: { "she/her": ["she/her"], "he/him": ["he/him"], "they/them": ["they/them"], "she/they": ["she/they"], "he/they": ["he/they"] },
  },
  // Where an account stands in the funnel: "Oscorp is a prospect" -> "is now a paying customer".
  {
    name: "customer status",
    attributes: ["customer status", "account status", "status"],
    values: {
      prospect: ["prospect"],
      trial: ["on a trial", "in trial", "trialing", "trial customer"],
      customer: ["paying customer", "paid customer", "a customer"],
      churned: ["churned", "former customer"],
    },
  },
  // A project's health, said as a colour or a phrase: "on track" -> "flagged red".
  {
    name: "health",
    attributes: ["health", "rag status", "status"],
    values: { green: ["on track", "track", "green", "healthy"], amber: ["at risk", "risk of", "amber", "yellow"], red: ["off track", "red", "blocked"] },
  },
  {
    name: "relationship status",
    attributes: ["relationship status", "marital status"],
    values: { single: ["single"], married: ["married"], engaged: ["engaged"], divorced: ["divorced"], widowed: ["widowed"] },
  },
  {
    name: "seat preference",
    attributes: ["seat preference", "preferred seat"],
    values: { window: ["window seat", "window seats"], aisle: ["aisle seat", "aisle seats"], middle: ["middle seat", "middle seats"] },
  },
  { name: "diet", attributes: ["diet"], values: { vegetarian: ["vegetarian"], vegan: ["vegan"], pescatarian: ["pescatarian"], omnivore: ["omnivore"] } },
  {
    name: "work arrangement",
    attributes: ["work arrangement"],
    values: { remote: ["fully remote", "works remotely", "remote worker"], hybrid: ["hybrid"], "on-site": ["on-site", "onsite", "in the office full-time"] },
  },
  // A customer has one support tier, whether said as "support tier is standard" or "moved to premium support".
  {
    name: "support tier",
    attributes: ["support tier", "support plan", "support level", "support package"],
    values: {
      basic: ["basic support"],
      standard: ["standard support"],
      premium: ["premium support"],
      enterprise: ["enterprise support"],
      priority: ["priority support"],
      gold: ["gold support"],
      platinum: ["platinum support"],
    },
  },
  // Indentation is tabs or spaces; the words alone ("browser tabs") need the code-style context.
  {
    name: "indentation",
    attributes: ["code style", "coding style", "indentation", "indent style", "indentation style"],
    values: { tabs: ["tabs"], spaces: ["spaces"] },
    context: /\b(?:indent(?:ation|ed|s)?|code style|coding style|style guide|formatting)\b/iu,
  },
  // A service is deployed in one cloud region: AWS and Azure-style "us-east-1", "EU-West", GCP's "europe-west1".
  {
    name: "region",
    attributes: ["region"],
    pattern: new RegExp(`(?<![\\p{L}\\p{N}-])(?<value>${AWS_REGION}|${GCP_REGION})(?![\\p{L}\\p{N}-])`, "iu"),
    context: new RegExp(`${RUNS_ON.source}|\\b(?:is|are) (?:now )?in\\b|\\bregion\\b`, "iu"),
  },
  // One version of each runtime at a time: "runs on Node 18" -> "was upgraded to Node 20".
  {
    name: "node version",
    attributes: ["node version", "node.js version", "runtime"],
    pattern: version("node\\.?js|node", "\\d{1,2}(?:\\.\\d{1,3}){0,2}"),
    context: RUNS_ON,
  },
  { name: "python version", attributes: ["python version", "runtime"], pattern: version("python", "[23](?:\\.\\d{1,3}){0,2}"), context: RUNS_ON },
  { name: "java version", attributes: ["java version", "jdk version", "runtime"], pattern: version("java|jdk|openjdk", "\\d{1,2}"), context: RUNS_ON },
  { name: "ruby version", attributes: ["ruby version", "runtime"], pattern: version("ruby", "\\d(?:\\.\\d{1,3}){1,2}"), context: RUNS_ON },
  { name: "php version", attributes: ["php version", "runtime"], pattern: version("php", "\\d(?:\\.\\d{1,3}){0,2}"), context: RUNS_ON },
  { name: "go version", attributes: ["go version", "runtime"], pattern: version("go|golang", "1\\.\\d{1,2}(?:\\.\\d{1,3})?"), context: RUNS_ON },
  {
    name: "postgres version",
    attributes: ["postgres version", "postgresql version"],
    pattern: version("postgres|postgresql", "\\d{1,2}(?:\\.\\d{1,3})?"),
    context: RUNS_ON,
  },
];

/**
 * The sentence shapes a value class is read from: a subject (the words up to its verb, so "The
 * billing service runs on ..." is about the billing service) and the rest. A possessive part
 * ("Tom's son is vegan", "Our code style uses tabs") must be one of the class's attributes, or the
 * sentence is about someone or something else. Groups: subject, part, rest.
 */
const CLASS_SUBJECT = `(?<subject>(?:[Tt]he )?${WORD}(?: ${WORD}){0,3}?)`;
/** A verb after a possessive part, plural parts' base forms included ("Sam's kids use Windows"). */
const PART_VERB = `(?:${SUBJECT_VERB_SOURCE}|(?:use|run|eat|work|live|need|prefer|switch|move)(?![\\p{L}]))`;
export const VALUE_CLASS_POSSESSIVE = new RegExp(
  `^(?:${CLASS_SUBJECT}'s?|(?<subject2>[Oo]ur|[Mm]y)) (?<part>${WORD}(?: ${WORD})?) (?<rest>${PART_VERB}.{0,200})$`,
  "u",
);
export const VALUE_CLASS_SENTENCE = new RegExp(`^${CLASS_SUBJECT}(?:'s |'re |'m | (?=${SUBJECT_VERB_SOURCE}))(?<rest>.{1,200})$`, "u");

/**
 * Negations folded into a positive statement plus a "negated" flag, so one set of rules reads
 * both "Sam plays the guitar" and "Sam stopped playing the guitar". Applied once, first match
 * wins; a negation left afterwards blocks the claim.
 */
export interface NegationFold extends Rule {
  readonly replacement: string;
}

export const NEGATION_FOLDS: readonly NegationFold[] = [
  { name: "contracted_be_not", pattern: /('m|'re|'s) not\b/iu, replacement: "$1" },
  { name: "no_longer_be", pattern: /\b(is|are|am|was|'s|'re|'m) no longer\b/iu, replacement: "$1" },
  { name: "not_be", pattern: /\b(is|are|am|was|were) not\b/iu, replacement: "$1" },
  { name: "contracted_not_be", pattern: /\b(is|are|was|were)n't\b/iu, replacement: "$1" },
  { name: "no_longer", pattern: /\bno longer /iu, replacement: "" },
  { name: "does_not", pattern: /\b(?:doesn't|does not|don't|do not|didn't|did not|never) /iu, replacement: "" },
  // "Otto left the design guild": no longer a member of it (a named employer is left_employer's).
  { name: "left_group", pattern: /^(\S.{0,60}?) (?:has )?(?:left|quit) the /u, replacement: "$1 is a member of the " },
  // "Iris is back from parental leave": no longer on it.
  {
    name: "back_from",
    pattern: new RegExp(`(\\bis|\\bare|\\bam|'s|'re|'m) (?:now |finally |just )?back from (?:(?:a|an|the|his|her|their|my) )?(?=${LEAVE}$)`, "iu"),
    replacement: "$1 on ",
  },
  {
    name: "returned_from",
    pattern: new RegExp(`\\b(?:has |have )?returned from (?:(?:a|an|the|his|her|their|my) )?(?=${LEAVE}$)`, "iu"),
    replacement: "is on ",
  },
  { name: "stopped", pattern: /\b(?:has |have |recently |just )?(?:stopped|quit|gave up|given up|ceased) (?=\p{L}{2,30}ing\b)/iu, replacement: "" },
];
const NAME_WORD = "\\p{Lu}[\\p{L}'-]{0,30}";
const SAID = "(?:said|says|mentioned|told us|told me|confirmed|let us know)";
const BETA_ROLE = "(?:tester|user|customer|participant|partner)s?";
const WORK_STATE = "(?:on hold|paused|blocked|stalled|frozen|on track|at risk|behind schedule|delayed)";
const WORK_PROGRESS = `(?:has |have )?(?:resumed|stalled)|(?:is|was|has been) ${WORK_STATE}`;
/**
 * Phrasings rewritten into one a rule reads, keeping what they claim, so the statement and its end
 * meet on one claim: "Acme is a beta tester for Insights" is membership of the Insights beta, which
 * "Acme left the Insights beta" ends. Applied once, before negation folding; first match wins.
 * The shape of a negation fold, without the negation.
 */
export const REPHRASINGS: readonly NegationFold[] = [
  // "renews every September 1": a yearly date is the date.
  {
    name: "every_date",
    pattern: / every ((?:January|February|March|April|May|June|July|August|September|October|November|December) \d{1,2})$/u,
    replacement: " on $1",
  },
  // Reported speech about oneself: "Katherine said she'd rather go by Kat" is Katherine's own claim.
  {
    name: "reported_speech",
    pattern: new RegExp(`^(${NAME_WORD}(?: ${NAME_WORD})?) ${SAID} (?:that )?(?:she|he|they)(?:'d| would) rather `, "u"),
    replacement: "$1 would rather ",
  },
  // "I'm based in Tamale" reads like "Tom is based in ...".
  { name: "first_person_be", pattern: /^I'm (?=\S)/u, replacement: "I am " },
  // "Chidi would rather text than call" is a preference of one over the other.
  { name: "would_rather", pattern: /^(.{1,60}?) (?:would|'d) rather (.{1,40}?) than (.{1,40}?)$/u, replacement: "$1 prefers $2 over $3" },
  // "Katherine prefers to be called Kate", "Laura goes by Laura Park": the name they use.
  {
    name: "called",
    pattern:
      /^(.{1,60}?) (?:prefers to be called|likes to be called|wants to be called|goes by|would rather go by|'d rather go by) (?!(?:she|he|they)\/)(.{1,40})$/u,
    replacement: "$1's preferred name is $2",
  },
  {
    name: "beta_participant",
    pattern: new RegExp(`^(.{1,60}?) (is|are|was) (?:a |an )?(beta|alpha|pilot|early access) ${BETA_ROLE} (?:for|of|in|on) (?:the )?(.{1,60})$`, "u"),
    replacement: "$1 $2 a member of the $4 $3",
  },
  {
    name: "joined_beta",
    pattern: /^(.{1,60}?) (?:has |have )?joined the (.{1,60}? (?:beta|alpha|pilot|early access program))$/u,
    replacement: "$1 is a member of the $2",
  },
  // "Work on the dashboard has resumed" is the dashboard's status.
  {
    name: "work_on",
    pattern: new RegExp(`^(?:[Ww]ork|[Dd]evelopment|[Pp]rogress) on (?:the )?(.{1,60}?) (${WORK_PROGRESS})$`, "u"),
    replacement: "The $1 $2",
  },
];
/** Words at the end of a statement that only stress that it is current: "Pablo is 28 now". */
const CURRENT_WORDS = anyOf([
  "now",
  "instead",
  "after all",
  "these days",
  "currently",
  "at the moment",
  "as of today",
  "as of now",
  "going forward",
  "from now on",
  "again",
  "last (?:week|month|year|quarter)",
  "this (?:week|month|year|quarter)",
  "next (?:week|month|year|quarter)",
  "yesterday",
  "today",
  "recently",
]);
export const CURRENT_TAIL = new RegExp(`(?:,? ${CURRENT_WORDS})+$`, "iu");
/** When a change happened, said after the claim: "was promoted to Staff Engineer in Q2". */
const WHEN_WORDS = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
  "q1",
  "q2",
  "q3",
  "q4",
  "spring",
  "summer",
  "autumn",
  "fall",
  "winter",
  "the spring",
  "the summer",
  "the autumn",
  "the fall",
  "the winter",
  "the move",
  "the wedding",
  "the acquisition",
  "the merger",
  "the reorg",
  "the offsite",
];
const WHEN_PREPOSITIONS = ["in", "on", "since", "as of", "over", "during", "after", "starting", "effective", "from"];
const WHEN_NAMED = `${anyOf(WHEN_WORDS)}(?: \\d{1,2}(?:st|nd|rd|th)?)?(?:,? \\d{4})?`;
const WHEN_DAY_MONTH = `\\d{1,2} ${anyOf(WHEN_WORDS.slice(0, 12))}`;
/**
 * A trailing time adjunct: "in March", "since the move", "as of April 28", "on 3/1". Claims are
 * read without it first, and with it when that gives none ("Atlas launches on May 1").
 */
export const WHEN_TAIL = new RegExp(`,? ${anyOf(WHEN_PREPOSITIONS)} (?:${WHEN_NAMED}|\\d{1,2}/\\d{1,2}(?:/\\d{2,4})?|${WHEN_DAY_MONTH}|\\d{4})$`, "iu");
/** Words after a negation that only stress it: "doesn't play it anymore". */
export const NEGATION_TAIL = /(?:,? (?:anymore|any more|any longer|these days|now))+$/iu;

/**
 * Fallbacks after every rule and relation above: "Tom is vegetarian" (a state) and "Bianca runs
 * marathons" (a habit) hold many values; only their own negation ("is no longer vegetarian",
 * "doesn't run marathons anymore") replaces them. The verb is compared by its stem.
 */
export const STATE: Rule = { name: "state", pattern: new RegExp(`^${SUBJECT}(?: is|'s| are|'re| am|'m) (?:a |an )?(?<value>[\\p{L}-]{2,30})$`, "u") };
export const HABIT: Rule = { name: "habit", pattern: new RegExp(`^${SUBJECT} (?<verb>\\p{Ll}{2,20}) (?<value>.{1,80})$`, "u") };
const USING = anyOf([
  "use",
  "uses",
  "using",
  "going with",
  "go with",
  "went with",
  "switched to",
  "moved to",
  "migrated to",
  "standardized on",
  "standardised on",
  "picked",
  "chose",
  "rely on",
  "relies on",
]);
/**
 * "We use Jira for bug tracking", "We're going with AWS for hosting": one tool per purpose.
 * Decisions to use something for a purpose key the same way. Groups: subject, value, scope.
 */
export const USE_FOR: Rule = {
  name: "use_for",
  pattern: new RegExp(`^${SUBJECT}(?:'re| are| will|'ll)? ${NOW}${USING} (?<value>.{1,60}?) (?:for|as) (?<scope>.{1,60})$`, "u"),
};

/** "prefers A over B": the explicit comparison a reversal replaces. Groups: a, b. */
export const COMPARISON = /^(?<a>.{1,60}?) (?:over|to|rather than|instead of|more than|better than) (?<b>.{1,60})$/u;
/** "prefers Slack for status updates": a preference scoped to one purpose holds one value. Groups: value, scope. */
export const PREFERENCE_SCOPE = /^(?<value>.{1,80}?) for (?<scope>[\p{L}\p{N}-]{1,30}(?: [\p{L}\p{N}-]{1,30}){0,3})$/u;

const DECIDED = "(?:have |has |'ve |just |finally |now |officially ){0,6}(?:decided|agreed|chose|opted|resolved|voted|settled|committed)";
/**
 * Decisions: "We decided to release on Tuesdays", "The team agreed to use Redis for the job
 * queue", "We decided that releases ship on Thursdays". Groups: subject, value (what was decided).
 */
export const DECISION = new RegExp(`^${SUBJECT} ${DECIDED}(?: (?<how>to|on|that|for|upon))? (?<value>.{1,160})$`, "u");
/** Verbs that mean "use" in a decision, so "go with Redis" and "use Postgres" answer one question. */
export const USE_VERBS: ReadonlySet<string> = new Set([
  "use",
  "adopt",
  "go with",
  "switch to",
  "move to",
  "standardize on",
  "standardise on",
  "pick",
  "choose",
  "select",
  "migrate to",
  "stick with",
  "keep",
]);
/** Decisions that fix when or where something happens: a new one replaces the old one. */
export const SCHEDULING_VERBS: ReadonlySet<string> = new Set([
  "release",
  "ship",
  "deploy",
  "meet",
  "hold",
  "launch",
  "run",
  "move",
  "freeze",
  "schedule",
  "push",
  "postpone",
  "delay",
  "start",
  "end",
  "cut",
  "hold off",
  "do",
  "have",
  "price",
  "charge",
  "set",
  "cap",
  "limit",
  "bill",
  "host",
  "name",
  "call",
  "rename",
]);
/** Prepositions that put the decided value after them ("release on Tuesdays", "move the standup to 10"). */
export const DECISION_PREPOSITIONS: ReadonlySet<string> = new Set(["on", "at", "to", "every", "by", "until", "in", "from", "each", "as"]);

/** A sentence with any of these makes no claim: it asks or guesses rather than states. */
export interface ClaimBlocker extends Rule {
  /** Checked on the sentence after negation folding, so only negation the folds did not read is left. */
  readonly afterFolding?: boolean;
}

const HEDGE = anyOf([
  "maybe",
  "probably",
  "perhaps",
  "possibly",
  "might",
  "may be",
  "unsure",
  "unclear",
  "allegedly",
  "rumou?red",
  "supposedly",
  "apparently",
  "i think",
  "i guess",
  "i believe",
  "if",
  "unless",
  "considering",
  "thinking about",
  "plans? to",
  "planning to",
  "hopes? to",
  "wants? to",
  "would like to",
  "could",
  "should",
  "likely",
  "unlikely",
  "expected to",
  "rumor",
  "rumour",
  "reportedly",
  "seems",
  "seemed",
  "sounds like",
  "talking about",
  "proposed",
  "suggested",
  "might be",
]);

export const CLAIM_BLOCKERS: readonly ClaimBlocker[] = [
  // Negation left over after folding "no longer", "doesn't", "stopped" (claim.ts): "not only", "nobody".
  { name: "negation", afterFolding: true, pattern: /\b(?:not|never|no|nobody|no one|neither|nor|none|without)\b|n't\b/i },
  // "Priya's manager is Tom?", "Is Priya's manager Tom".
  { name: "question", pattern: /\?|^(?:who|what|where|when|why|how|is|are|was|were|do|does|did|can|could|should|would|will)\b/i },
  // "The search service also runs in eu-west-1": a second value beside the first, not a new one.
  { name: "addition", pattern: /\b(?:also|as well)\b|\btoo\W{0,3}$/iu },
  // "Priya's manager is probably Tom": a guess must not replace a stated fact.
  {
    name: "hedge",
    pattern: new RegExp(`\\b${HEDGE}\\b`, "i"),
  },
];

const CLAUSE_START = "(?:who|which|whom|where|because|since|although|though|but|until|starting|effective|as of|after|when|while|instead of)";
/** A parenthesis, a dash or a semicolon; a regex literal for its dashes, as CURRENCY_SIGN is. */
const PUNCTUATION_END = / \(| - | – | — |;/.source;
/** Where a value stops: a relative or subordinate clause, a parenthesis or a dash. */
export const VALUE_END = new RegExp(`,? ${CLAUSE_START}\\b|, (?:and|so)\\b| and (?:joined|moved|started|is|was|became|now|then)\\b|${PUNCTUATION_END}`, "iu");

/** Attribute words that show the "attribute" is really a verb phrase ("Priya's been ..."). */
export const NOT_ATTRIBUTES: ReadonlySet<string> = new Set("been going gonna got done not also always never just really still now very a an the".split(" "));

/**
 * Attributes that hold many values at once even in "Maya's X is Y" form: a person has many
 * hobbies, friends and languages. Plural attributes ("Maya's hobbies are ...") are many-valued too
 * unless listed in SINGULAR_S.
 */
export const MANY_VALUED_ATTRIBUTES: ReadonlySet<string> = new Set([
  "hobby",
  "friend",
  "language",
  "interest",
  "skill",
  "pet",
  "kid",
  "child",
  "sibling",
  "brother",
  "sister",
  "colleague",
  "tool",
  "client",
  "customer",
  "favorite thing",
  "passion",
  "allergy",
  "habit",
  "goal",
  "concern",
  "idea",
  "project",
  "teammate",
  "neighbor",
  "neighbour",
  "cousin",
  "investor",
  "partner company",
  "vendor",
  "supplier",
  "competitor",
  "dog",
  "cat",
  "car",
  "team member",
  "member",
  "feature",
  "integration",
  "product",
  "plan for",
  "priority list",
]);
/** Attribute words ending in "s" that are singular. */
export const SINGULAR_S: ReadonlySet<string> = new Set([
  "status",
  "address",
  "boss",
  "class",
  "business",
  "campus",
  "alias",
  "basis",
  "process",
  "access",
  "progress",
  "news",
  "headquarters",
  "series",
  "analysis",
  "bonus",
  "focus",
  "thesis",
  "virus",
  "census",
  "radius",
  "canvas",
  "atlas",
  "os",
  "arr",
  "mrr",
  "bus",
  "gas",
  "plus",
  "less",
  "address is",
  "ts",
  "hours",
]);

/** Synonyms folded to one attribute so "boss" and "manager" claims supersede each other. */
export interface AttributeAlias extends Rule {
  /** Replacement for the matched part of the attribute. */
  readonly canonical: string;
}

const LAUNCH_WORDS = anyOf([
  "launch",
  "launch date",
  "release",
  "release date",
  "go-live",
  "go-live date",
  "go live",
  "ship date",
  "launches",
  "releases",
  "ships",
  "ship",
  "goes live",
  "is launching",
  "is releasing",
  "is shipping",
]);

export const ATTRIBUTE_ALIASES: readonly AttributeAlias[] = [
  // "boss", "line manager", "supervisor" name the same relationship as "manager" and "reports to".
  { name: "manager_synonym", pattern: /^(?:boss|line manager|direct manager|reporting manager|supervisor|manager)$/u, canonical: "manager" },
  // A spouse by any name.
  { name: "partner_synonym", pattern: /^(?:wife|husband|spouse|partner|girlfriend|boyfriend|fiancée?|fiance)$/u, canonical: "partner" },
  { name: "email_synonym", pattern: /^(?:e-mail|email address|e-mail address|work email|contact email)$/u, canonical: "email" },
  {
    name: "phone_synonym",
    pattern: /^(?:phone number|mobile|mobile number|cell|cell number|cell phone|telephone|telephone number|phone|number|contact number|line|phone line)$/u,
    canonical: "phone",
  },
  { name: "hometown_synonym", pattern: /^home town$/u, canonical: "hometown" },
  { name: "favorite_spelling", pattern: /^favourite(?![\p{L}])/u, canonical: "favorite" },
  { name: "colour_spelling", pattern: /(?<![\p{L}])colour(?![\p{L}])/u, canonical: "color" },
  { name: "team_synonym", pattern: /^(?:team|squad|pod|group|department)$/u, canonical: "team" },
  { name: "role_synonym", pattern: /^(?:title|job title|job|position|role|job role)$/u, canonical: "role" },
  { name: "employer_synonym", pattern: /^(?:employer|company|workplace)$/u, canonical: "employer" },
  { name: "location_synonym", pattern: /^(?:location|city|home city|current city|hq|headquarters|head office|base)$/u, canonical: "location" },
  { name: "plan_synonym", pattern: /^(?:plan|subscription|subscription plan|tier|pricing tier|pricing plan|package|edition)$/u, canonical: "plan" },
  { name: "due_date_synonym", pattern: /^(?:deadline|due date|due)$/u, canonical: "due date" },
  {
    name: "launch_date_synonym",
    pattern: new RegExp(`^${LAUNCH_WORDS}$`, "u"),
    canonical: "launch date",
  },
  {
    name: "renewal_date_synonym",
    pattern: /^(?:renewal|renewal date|renew|renews|is renewing|is up for renewal|contract renewal|contract renewal date)$/u,
    canonical: "renewal date",
  },
  {
    name: "start_date_synonym",
    pattern: /^(?:kickoff|kick-off|kickoff date|start|start date|kick off|kicks off|starts|begin|begins)$/u,
    canonical: "start date",
  },
  {
    name: "end_date_synonym",
    pattern: /^(?:end|end date|ends|wrap up|wraps up|close|closes|expire|expires|expiry|expiry date|expiration date)$/u,
    canonical: "end date",
  },
  { name: "price_synonym", pattern: /^(?:price|cost|pricing)$/u, canonical: "price" },
  {
    name: "employee_count_synonym",
    pattern: /^(?:headcount|head count|employee|employee count|number of employees|staff|people|person|staff count)$/u,
    canonical: "employee count",
  },
  { name: "seat_count_synonym", pattern: /^(?:seat|seats|seat count|number of seats|license|licence|license count|licenses)$/u, canonical: "seat count" },
  { name: "birthday_synonym", pattern: /^(?:birthday|date of birth|birth date|dob)$/u, canonical: "birthday" },
  { name: "time_zone_synonym", pattern: /^(?:timezone|time zone|tz)$/u, canonical: "time zone" },
  { name: "owner_synonym", pattern: /^(?:owner|product owner|maintainer)$/u, canonical: "owner" },
  { name: "lead_synonym", pattern: /^(?:lead|project lead|tech lead|team lead|leader)$/u, canonical: "lead" },
  // A person's address is where they live; the modifier names no second address.
  { name: "address_synonym", pattern: /^(?:home address|street address|residential address)$/u, canonical: "address" },
  // An account or service has one API rate limit.
  { name: "rate_limit_synonym", pattern: /^(?:api rate limit|rate limit)$/u, canonical: "rate limit" },
  // A team's channel is its Slack channel (other tools' channels stay apart: a project may have both).
  { name: "channel_synonym", pattern: /^(?:slack channel|channel)$/u, canonical: "channel" },
  // Where data or a service is hosted: "data region", "AWS region".
  { name: "region_synonym", pattern: /^(?:data region|hosting region|cloud region|aws region|deployment region|region)$/u, canonical: "region" },
  // ACV is the annual contract value.
  { name: "contract_value_synonym", pattern: /^(?:acv|annual contract value|contract value)$/u, canonical: "contract value" },
  // The person to talk to at a company ("main" is dropped before aliases).
  { name: "contact_synonym", pattern: /^(?:point of contact|contact person|poc|contact)$/u, canonical: "contact" },
  // What a customer pays each month is its price, as in "Vantage pays $2,000 a month".
  { name: "monthly_price_synonym", pattern: /^(?:monthly bill|monthly fee|monthly payment|monthly cost|monthly price|monthly spend)$/u, canonical: "price" },
  // How long a contract runs.
  { name: "contract_term_synonym", pattern: /^(?:contract term|contract length|contract duration|term length)$/u, canonical: "contract term" },
  // Dates of events, as "the API v1 deprecation" and "deprecate API v1 on June 1" name them.
  { name: "deprecation_date_synonym", pattern: /^(?:deprecation|deprecation date|sunset|sunset date)$/u, canonical: "deprecation date" },
  { name: "migration_date_synonym", pattern: /^(?:migration|migration date)$/u, canonical: "migration date" },
  { name: "working_hours_synonym", pattern: /^(?:working hours|work hours|working time)$/u, canonical: "working hours" },
];

/** The longest value a claim may have: longer "values" are prose, not one attribute's value. */
export const MAX_CLAIM_VALUE = 120;
