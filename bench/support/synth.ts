/**
 * Deterministic synthetic workspace content for the performance benches: facts that read like a
 * real team's memory (people, teams, projects, tools, customers), search queries over the same
 * vocabulary, and fresh facts for the teach scenario. Everything derives from a string seed, so
 * two runs with the same seed produce the same texts in the same order.
 */
import type { FactKind, Origin, SubjectType } from "../../src/schema/memory";
import { claimKey } from "../../src/capture/claim-key";

/** sfc32 seeded from a string (via cyrb128): fast, small, good enough for test data. */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: string) {
    let h1 = 1779033703;
    let h2 = 3144134277;
    let h3 = 1013904242;
    let h4 = 2773480762;
    for (let i = 0; i < seed.length; i++) {
      const k = seed.charCodeAt(i);
      h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
      h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
      h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
      h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
    }
    h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
    h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
    h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
    h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
    this.a = (h1 ^ h2 ^ h3 ^ h4) >>> 0;
    this.b = (h2 ^ h1) >>> 0;
    this.c = (h3 ^ h1) >>> 0;
    this.d = (h4 ^ h1) >>> 0;
    for (let i = 0; i < 12; i++) this.next();
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.a >>>= 0;
    this.b >>>= 0;
    this.c >>>= 0;
    this.d >>>= 0;
    let t = (this.a + this.b) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.d = (this.d + 1) | 0;
    t = (t + this.d) | 0;
    this.c = (this.c + t) | 0;
    return (t >>> 0) / 4294967296;
  }

  int(maxExclusive: number): number {
    return Math.floor(this.next() * maxExclusive);
  }

  between(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }

  /** Zipf-ish pick: low indexes are much more frequent (a few people and projects dominate). */
  skewed<T>(items: readonly T[], power = 2.2): T {
    return items[Math.floor(this.next() ** power * items.length)] as T;
  }

  chance(p: number): boolean {
    return this.next() < p;
  }
}

// ---------------------------------------------------------------------------------------------
// Vocabulary

const FIRST = [
  "Priya",
  "Tom",
  "Ana",
  "Bo",
  "Cy",
  "Dana",
  "Elena",
  "Farid",
  "Grace",
  "Hiro",
  "Ines",
  "Jonas",
  "Kemi",
  "Liam",
  "Maya",
  "Nikhil",
  "Olga",
  "Pedro",
  "Quinn",
  "Rosa",
  "Sven",
  "Tariq",
  "Uma",
  "Viktor",
  "Wen",
  "Ximena",
  "Yusuf",
  "Zara",
  "Aisha",
  "Ben",
  "Carmen",
  "Dmitri",
  "Esther",
  "Felix",
  "Gianni",
  "Hannah",
  "Ivan",
  "Julia",
  "Kofi",
  "Lena",
  "Marco",
  "Nora",
  "Oscar",
  "Paula",
  "Rahul",
  "Sofia",
  "Theo",
  "Valentina",
  "Will",
  "Yara",
  "Amir",
  "Beatriz",
  "Chen",
  "Diego",
  "Emma",
  "Fatima",
  "Gabriel",
  "Helga",
  "Isaac",
  "Jin",
  "Karin",
  "Luca",
  "Mei",
  "Noah",
  "Omar",
  "Pia",
  "Rafael",
  "Sara",
  "Tobias",
  "Ulla",
  "Vera",
  "Wojtek",
  "Xavier",
  "Yuki",
  "Zeynep",
  "Adele",
  "Bruno",
  "Clara",
  "Dev",
  "Eva",
  "Frank",
  "Gita",
  "Hugo",
  "Ida",
  "Jamal",
  "Kai",
  "Leila",
  "Mateo",
  "Nadia",
  "Owen",
  "Petra",
  "Ravi",
  "Selin",
  "Tanvi",
  "Ugo",
];
const LAST = [
  "Natarajan",
  "Okafor",
  "Silva",
  "Lindqvist",
  "Haddad",
  "Kowalski",
  "Nakamura",
  "Fischer",
  "Moreau",
  "Rossi",
  "Novak",
  "Jensen",
  "Garcia",
  "Petrov",
  "Mensah",
  "Ito",
  "Schmidt",
  "Dubois",
  "Costa",
  "Andersen",
  "Ahmed",
  "Kim",
  "Oliveira",
  "Larsen",
  "Bauer",
  "Romano",
  "Horvat",
  "Yilmaz",
  "Singh",
  "Murphy",
  "Tanaka",
  "Weber",
  "Laurent",
  "Ferreira",
  "Berg",
  "Khan",
  "Park",
  "Santos",
  "Nilsson",
  "Wagner",
  "Greco",
  "Kovac",
  "Demir",
  "Patel",
  "OBrien",
  "Sato",
  "Klein",
  "Mercier",
  "Almeida",
  "Dahl",
];
const TEAMS = [
  "Platform",
  "Payments",
  "Growth",
  "Infra",
  "Data",
  "Mobile",
  "Security",
  "Design",
  "Billing",
  "Search",
  "Support",
  "Onboarding",
  "Identity",
  "Reliability",
  "Analytics",
  "Integrations",
  "Compliance",
  "Developer Experience",
  "Marketing",
  "Sales Engineering",
  "Frontend",
  "Core API",
  "Machine Learning",
  "Finance",
  "People Ops",
];
const PROJECTS = [
  "Project Atlas",
  "the billing migration",
  "the Kubernetes upgrade",
  "the Q3 roadmap",
  "the onboarding flow",
  "the pricing page redesign",
  "the data warehouse move",
  "SSO for enterprise",
  "the mobile offline mode",
  "the search relevance work",
  "the audit log export",
  "the EU data residency launch",
  "the webhook retries",
  "the invoice PDF generator",
  "the on-call rotation",
  "the incident review process",
  "Project Nimbus",
  "Project Harbor",
  "the API v2 launch",
  "the status page",
  "the customer health score",
  "the churn model",
  "the partner portal",
  "the Slack integration",
  "the Salesforce sync",
  "the usage-based pricing",
  "the design system",
  "the feature flag cleanup",
  "the Postgres 16 upgrade",
  "the cost reduction plan",
  "the SOC 2 audit",
  "the accessibility review",
  "the CI speedup",
  "the monorepo split",
  "the rate limiter rewrite",
  "the cache layer",
  "the notification service",
  "the admin console",
  "the trial extension experiment",
  "the referral program",
  "Project Kestrel",
  "Project Juniper",
  "the GDPR deletion pipeline",
  "the analytics dashboard",
  "the load balancer swap",
  "the backup restore drill",
  "the tax calculation service",
  "the hiring plan",
  "the offsite agenda",
  "the quarterly OKRs",
];
const TOOLS = [
  "Postgres",
  "Redis",
  "Kafka",
  "Terraform",
  "Datadog",
  "Grafana",
  "Sentry",
  "Jira",
  "Linear",
  "Figma",
  "Stripe",
  "Snowflake",
  "BigQuery",
  "dbt",
  "Airflow",
  "GitHub Actions",
  "CircleCI",
  "Kubernetes",
  "Helm",
  "ArgoCD",
  "Vault",
  "PagerDuty",
  "Opsgenie",
  "Notion",
  "Confluence",
  "Segment",
  "Amplitude",
  "Mixpanel",
  "Looker",
  "Metabase",
  "Bun",
  "Node.js",
  "TypeScript",
  "Go",
  "Rust",
  "Python",
  "React",
  "Next.js",
  "Elixir",
  "ClickHouse",
  "Elasticsearch",
  "OpenSearch",
  "RabbitMQ",
  "S3",
  "CloudFront",
  "Cloudflare",
  "Fastly",
  "Auth0",
  "Okta",
  "Twilio",
  "SendGrid",
];
const CITIES = [
  "Lisbon",
  "Berlin",
  "Oslo",
  "Toronto",
  "Austin",
  "Nairobi",
  "Bangalore",
  "Tokyo",
  "Sao Paulo",
  "Warsaw",
  "Dublin",
  "Amsterdam",
  "Madrid",
  "Seoul",
  "Melbourne",
  "Cape Town",
  "Mexico City",
  "Istanbul",
  "Helsinki",
  "Montreal",
  "Singapore",
  "Zurich",
  "Copenhagen",
  "Lagos",
  "Denver",
  "Chicago",
  "Paris",
  "London",
  "Milan",
  "Prague",
];
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"];
const DRINKS = ["green tea", "black coffee", "oat flat whites", "sparkling water", "chai", "espresso", "mint tea"];
const CHANNELS = ["email", "Slack", "a short call", "a written doc", "Loom videos", "the weekly sync", "Linear comments"];
const PLANS = ["Starter", "Team", "Business", "Enterprise", "Free", "Growth"];
const FEATURES = [
  "CSV export",
  "SAML login",
  "webhooks",
  "the mobile app",
  "scheduled reports",
  "the API",
  "bulk import",
  "audit logs",
  "custom roles",
  "the dashboard",
  "invoice downloads",
  "two-factor login",
  "the Zapier app",
  "search",
  "notifications",
];
const ROLES = [
  "staff engineer",
  "engineering manager",
  "product manager",
  "designer",
  "data scientist",
  "SRE",
  "tech lead",
  "support lead",
  "solutions architect",
  "security engineer",
  "account executive",
  "head of finance",
  "recruiter",
];
const CLAUSES = [
  "according to the notes from the last retro",
  "which came up again during the planning meeting",
  "and nobody has objected so far",
  "as confirmed in the weekly sync",
  "because the previous approach kept causing pages at night",
  "based on feedback from three enterprise customers",
  "after a long discussion in the architecture channel",
  "so the roadmap for next quarter reflects it",
  "and the runbook has been updated accordingly",
  "while the budget review is still pending",
  "to keep the error budget under control",
  "since latency regressed after the last release",
  "which the finance team wants tracked monthly",
  "although the numbers still need a second look",
  "and it should be revisited after the migration",
  "per the summary that was shared on Friday",
  "which matters for the renewal conversation",
  "as long as the vendor contract allows it",
  "to reduce the amount of manual toil for support",
  "and the decision log has the full reasoning",
  "once the security review signs off",
  "which three other teams depend on",
  "as the customer success team asked for in the escalation",
  "even though the staging environment is still flaky",
  "until the contract with the vendor is renewed",
  "which was raised in the postmortem as well",
  "and the metrics dashboard now shows the trend clearly",
  "so new hires should read the onboarding doc first",
  "according to a thread in the leadership channel",
  "after the pilot with two design partners went well",
  "and the legal team has no concerns about it",
  "which should cut cloud spend by a noticeable amount",
  "unless the board asks for a different priority",
  "as noted in the quarterly business review",
  "which is why the alert thresholds were changed",
  "to match what the largest accounts expect",
  "and the support macros mention it now",
  "while hiring for the open roles continues",
  "since the old vendor is being phased out",
  "so the migration plan has an extra week of buffer",
];

export interface Person {
  name: string;
  first: string;
}

export interface EndUserSpec {
  id: string;
  name: string;
}

/** The fixed cast of a synthetic workspace. */
export interface Cast {
  people: Person[];
  teamMembers: string[];
  endUsers: EndUserSpec[];
}

export function makeCast(seed: string, endUserCount = 500, teamMemberCount = 40): Cast {
  const rng = new Rng(`${seed}:cast`);
  const names = new Set<string>();
  const people: Person[] = [];
  while (people.length < 1500) {
    const first = rng.pick(FIRST);
    const name = `${first} ${rng.pick(LAST)}`;
    if (names.has(name)) continue;
    names.add(name);
    people.push({ name, first });
  }
  const teamMembers = people.slice(0, teamMemberCount).map((p) => p.name);
  const endUsers: EndUserSpec[] = [];
  for (let i = 0; i < endUserCount; i++) {
    endUsers.push({ id: `cust_${String(i + 1).padStart(4, "0")}`, name: `${rng.pick(FIRST)} ${rng.pick(LAST)}` });
  }
  return { people, teamMembers, endUsers };
}

// ---------------------------------------------------------------------------------------------
// Facts

export interface SynthFact {
  text: string;
  kind: FactKind;
  origin: Origin;
  subject: string;
  subjectType: SubjectType;
  endUserId: string | null;
  sensitive: boolean;
  /** A supersedable claim (subject|attribute) and its value, as the pipeline would key it. */
  claim: { key: string; subject: string; value: string } | null;
}

type Template = (rng: Rng, s: string, cast: Cast) => { text: string; kind: FactKind; subject?: string; claim?: { attr: string; value: string } };

const num = (rng: Rng, min: number, max: number) => String(rng.between(min, max));

/** Facts about a person (workspace person, team member or end user), by kind. */
const PERSON_TEMPLATES: Template[] = [
  (r, s, c) => {
    // Managers come from a small pool, so "who is X's manager" has realistic answers.
    const v = (c.people[r.int(Math.min(120, c.people.length))] as Person).name;
    return { text: `${s}'s manager is ${v}.`, kind: "profile_fact", claim: { attr: "manager", value: v } };
  },
  (r, s) => {
    const v = r.pick(CITIES);
    return { text: `${s} lives in ${v}.`, kind: "profile_fact", claim: { attr: "lives in", value: v } };
  },
  (r, s) => ({ text: `${s} is the ${r.pick(ROLES)} on the ${r.pick(TEAMS)} team.`, kind: "profile_fact" }),
  (r, s) => ({ text: `${s}'s birthday is ${r.pick(MONTHS)} ${num(r, 1, 28)}.`, kind: "profile_fact" }),
  (r, s) => ({ text: `${s} joined the ${r.pick(TEAMS)} team in ${r.pick(MONTHS)} ${num(r, 2016, 2025)}.`, kind: "profile_fact" }),
  (r, s) => ({ text: `${s} owns ${r.pick(PROJECTS)} and reviews every change to it.`, kind: "profile_fact" }),
  (r, s) => ({ text: `${s} prefers ${r.pick(DRINKS)} in the morning.`, kind: "preference" }),
  (r, s) => ({ text: `${s} prefers ${r.pick(CHANNELS)} for status updates about ${r.pick(PROJECTS)}.`, kind: "preference" }),
  (r, s) => ({ text: `${s} likes to review pull requests on ${r.pick(DAYS)} afternoons.`, kind: "preference" }),
  (r, s) => ({ text: `${s} would rather use ${r.pick(TOOLS)} than ${r.pick(TOOLS)} for ${r.pick(PROJECTS)}.`, kind: "preference" }),
  (r, s) => ({ text: `${s} decided to move ${r.pick(PROJECTS)} to ${r.pick(TOOLS)} by ${r.pick(MONTHS)}.`, kind: "decision" }),
  (r, s) => ({ text: `${s} approved the budget for ${r.pick(PROJECTS)} in ${r.pick(MONTHS)}.`, kind: "decision" }),
  (r, s) => ({ text: `${s} mentioned that ${r.pick(PROJECTS)} is blocked on ${r.pick(TOOLS)} access.`, kind: "observation" }),
  (r, s) => ({ text: `${s} was out sick on ${r.pick(DAYS)} and missed the ${r.pick(TEAMS)} planning.`, kind: "observation" }),
  (r, s) => ({ text: `${s} gave a talk about ${r.pick(TOOLS)} at the ${r.pick(CITIES)} meetup.`, kind: "observation" }),
];

const END_USER_TEMPLATES: Template[] = [
  (r, s) => ({ text: `${s} is on the ${r.pick(PLANS)} plan and renews in ${r.pick(MONTHS)}.`, kind: "profile_fact" }),
  (r, s) => ({ text: `${s} prefers ${r.pick(CHANNELS)} over phone support.`, kind: "preference" }),
  (r, s) => ({ text: `${s} reported that ${r.pick(FEATURES)} times out on large accounts.`, kind: "observation" }),
  (r, s) => ({ text: `${s} asked for ${r.pick(FEATURES)} to support ${r.pick(TOOLS)}.`, kind: "observation" }),
  (r, s) => {
    const v = r.pick(CITIES);
    return { text: `${s} is based in ${v}.`, kind: "profile_fact", claim: { attr: "based in", value: v } };
  },
  (r, s) => ({ text: `${s} decided to upgrade to the ${r.pick(PLANS)} plan after the trial.`, kind: "decision" }),
  (r, s) => ({ text: `${s} uses ${r.pick(FEATURES)} every ${r.pick(DAYS)} for their team of ${num(r, 3, 400)}.`, kind: "observation" }),
];

/** Facts about the workspace itself: projects, tools, teams, incidents. */
const WORKSPACE_TEMPLATES: Template[] = [
  (r) => ({ text: `We decided to use ${r.pick(TOOLS)} for ${r.pick(PROJECTS)}.`, kind: "decision", subject: "team" }),
  (r) => {
    const team = r.pick(TEAMS);
    return {
      text: `The ${team} team agreed to freeze deploys on ${r.pick(DAYS)}s during ${r.pick(MONTHS)}.`,
      kind: "decision",
      subject: `${team.toLowerCase()} team`,
    };
  },
  (r) => {
    const project = r.pick(PROJECTS);
    return {
      text: `Decision: ${project} ships behind a feature flag before ${r.pick(MONTHS)} ${num(r, 1, 28)}.`,
      kind: "decision",
      subject: project.replace(/^the /, ""),
    };
  },
  (r) => {
    const team = r.pick(TEAMS);
    return {
      text: `The ${team} team prefers ${r.pick(TOOLS)} over ${r.pick(TOOLS)} for dashboards.`,
      kind: "preference",
      subject: `${team.toLowerCase()} team`,
    };
  },
  (r) => {
    const project = r.pick(PROJECTS);
    return {
      text: `${project.replace(/^the /, "The ")} is ${num(r, 10, 95)} percent done and tracked in ${r.pick(TOOLS)}.`,
      kind: "observation",
      subject: project.replace(/^the /, ""),
    };
  },
  (r) => ({ text: `Deploys of ${r.pick(PROJECTS)} take about ${num(r, 3, 45)} minutes on ${r.pick(TOOLS)}.`, kind: "observation", subject: "deploys" }),
  (r) => {
    const tool = r.pick(TOOLS);
    return {
      text: `The ${tool} bill went up ${num(r, 5, 60)} percent in ${r.pick(MONTHS)} because of ${r.pick(PROJECTS)}.`,
      kind: "observation",
      subject: `${tool} bill`,
    };
  },
  (r) => ({
    text: `p95 latency for ${r.pick(FEATURES)} was ${num(r, 40, 900)} ms after the ${r.pick(MONTHS)} release.`,
    kind: "observation",
    subject: "p95 latency",
  }),
  (r) => ({
    text: `The incident on ${r.pick(MONTHS)} ${num(r, 1, 28)} was caused by a ${r.pick(TOOLS)} misconfiguration in ${r.pick(PROJECTS)}.`,
    kind: "observation",
    subject: "incident",
  }),
  (r) => {
    const team = r.pick(TEAMS);
    return {
      text: `The ${team} standup is at ${num(r, 8, 11)}:${r.pick(["00", "15", "30", "45"])} on ${r.pick(DAYS)}s.`,
      kind: "observation",
      subject: `${team.toLowerCase()} standup`,
    };
  },
];

const SENSITIVE_TEMPLATES: Template[] = [
  (r, s) => ({ text: `${s}'s personal phone number is +1 555 ${num(r, 100, 999)} ${num(r, 1000, 9999)}.`, kind: "profile_fact" }),
  (r, s) => ({ text: `${s} is on medical leave until ${r.pick(MONTHS)}.`, kind: "observation" }),
  (r, s) => ({ text: `${s}'s salary was raised to ${num(r, 80, 250)}k in the last review.`, kind: "profile_fact" }),
];

function withLength(rng: Rng, base: string, targetWords: number): string {
  let text = base;
  let words = text.split(" ").length;
  const used = new Set<string>();
  // Extra clauses until the target length; the base sentence alone covers the short end.
  while (words < targetWords) {
    const clause = rng.pick(CLAUSES);
    if (used.has(clause)) continue;
    used.add(clause);
    const n = clause.split(" ").length;
    if (words + n > 60) break;
    text = `${text.replace(/\.$/, "")}, ${clause}.`;
    words += n;
  }
  return text;
}

/**
 * Word-count target: a quarter are the bare statement (5-14 words), most run 8-20 words, and a
 * tail of 21-60 (mean about 16 words, like short notes an agent or a person writes down).
 */
function targetLength(rng: Rng): number {
  const p = rng.next();
  if (p < 0.25) return 0;
  if (p < 0.85) return rng.between(8, 20);
  return rng.between(21, 60);
}

const ORIGINS: [Origin, number][] = [
  ["ingested", 0.5],
  ["user_stated", 0.25],
  ["agent_inferred", 0.1],
  ["agent_action", 0.1],
  ["system", 0.05],
];

function pickOrigin(rng: Rng): Origin {
  let p = rng.next();
  for (const [origin, share] of ORIGINS) {
    if (p < share) return origin;
    p -= share;
  }
  return "ingested";
}

/**
 * An endless, deterministic stream of facts for one workspace. Roughly: 10 % about end users,
 * 15 % about team members, 45 % about other people, 28 % about the workspace, 2 % sensitive.
 */
export function* factStream(seed: string, cast: Cast): Generator<SynthFact> {
  const rng = new Rng(`${seed}:facts`);
  for (;;) {
    const roll = rng.next();
    const origin = pickOrigin(rng);
    let t: ReturnType<Template>;
    let subject: string;
    let subjectType: SubjectType = "workspace";
    let endUserId: string | null = null;
    let sensitive = false;
    if (roll < 0.1) {
      const user = rng.skewed(cast.endUsers, 1.6);
      subject = user.name;
      subjectType = "end_user";
      endUserId = user.id;
      t = rng.pick(END_USER_TEMPLATES)(rng, subject, cast);
    } else if (roll < 0.12) {
      subject = rng.skewed(cast.people).name;
      t = rng.pick(SENSITIVE_TEMPLATES)(rng, subject, cast);
      sensitive = true;
    } else if (roll < 0.27) {
      subject = rng.pick(cast.teamMembers);
      subjectType = "team";
      t = rng.pick(PERSON_TEMPLATES)(rng, subject, cast);
    } else if (roll < 0.72) {
      const person = rng.skewed(cast.people);
      // People are mentioned by full name or, often, by first name only.
      subject = rng.chance(0.6) ? person.name : person.first;
      t = rng.pick(PERSON_TEMPLATES)(rng, subject, cast);
    } else {
      t = rng.pick(WORKSPACE_TEMPLATES)(rng, "", cast);
      subject = t.subject ?? "workspace";
      if (subject === "team") subjectType = "team";
    }
    const text = withLength(rng, t.text, targetLength(rng));
    const claimSubject = endUserId !== null ? `user:${endUserId}` : subject.toLowerCase();
    yield {
      text,
      kind: t.kind,
      origin,
      subject,
      subjectType,
      endUserId,
      sensitive,
      // The pipeline only keys a claim when the sentence is the bare statement (no trailing clause).
      claim:
        t.claim && text === t.text
          ? { key: claimKey({ cardinality: "one", subject: claimSubject, attribute: t.claim.attr }), subject: claimSubject, value: t.claim.value.toLowerCase() }
          : null,
    };
  }
}

// ---------------------------------------------------------------------------------------------
// Queries

/**
 * Search queries a user or an agent would plausibly send: questions about people and projects,
 * keyword bags, single names, typos, and a share of long (>64 characters, no trigram) questions.
 */
export function makeQueries(seed: string, cast: Cast, count = 600): string[] {
  const rng = new Rng(`${seed}:queries`);
  const person = () => rng.skewed(cast.people).name;
  const first = () => rng.skewed(cast.people).first;
  const typo = (word: string) => {
    if (word.length < 5) return word;
    const i = rng.between(1, word.length - 2);
    return word.slice(0, i) + word.slice(i + 1);
  };
  const makers: (() => string)[] = [
    () => `who is ${person()}'s manager`,
    () => `where does ${first()} live`,
    () => `what did we decide about ${rng.pick(PROJECTS).replace(/^the /, "")}`,
    () => `${rng.pick(TOOLS)} ${rng.pick(["latency", "cost", "migration", "outage", "bill", "upgrade"])}`,
    () => `how does ${first()} like to get status updates`,
    () => `${rng.pick(TEAMS)} team standup time`,
    () => first(),
    () => rng.pick(LAST),
    () => typo(rng.pick(TOOLS).toLowerCase()),
    () => `${typo(rng.pick(PROJECTS).replace(/^the /, ""))}`,
    () => `which plan is ${rng.pick(cast.endUsers).name} on`,
    () => `incident caused by ${rng.pick(TOOLS)} misconfiguration`,
    () => `p95 latency of ${rng.pick(FEATURES)} after the release`,
    () => `Can you remind me what the ${rng.pick(TEAMS)} team agreed about deploy freezes and whether ${rng.pick(PROJECTS)} is still blocked?`,
    () => `What does ${person()} own, who do they report to, and what did they say about ${rng.pick(TOOLS)} recently?`,
    () => `${rng.pick(FEATURES)} times out`,
    () => `budget approved ${rng.pick(MONTHS)}`,
  ];
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push(rng.pick(makers)());
  return out;
}

/** Questions for the worker (no statements in them, so the run does not teach anything). */
export function makeQuestions(seed: string, cast: Cast, count = 200): string[] {
  const rng = new Rng(`${seed}:questions`);
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    out.push(
      rng.pick([
        `Who is ${rng.skewed(cast.people).name}'s manager?`,
        `What did we decide about ${rng.pick(PROJECTS)}?`,
        `How long do deploys of ${rng.pick(PROJECTS)} take?`,
        `What is the ${rng.pick(TEAMS)} team's standup time?`,
      ]),
    );
  }
  return out;
}
