import { expect, test } from "bun:test";
import { tokenize, verbBase } from "../../src/capture/tokens";
import fc from "fast-check";
import { loadPairs, type PairSet } from "./supersession/pairs";

const tags = (sentence: string): string =>
  tokenize(sentence)
    .map((t) => `${t.text}/${t.pos}/${t.lemma}`)
    .join(" ");

test("a name is a proper noun that keeps its text: never stemmed or de-pluralised", () => {
  for (const [sentence, name] of [
    ["Adams lives in Leeds.", "adams"],
    ["Rhys moved to Cardiff.", "rhys"],
    ["Lukas drives a Golf.", "lukas"],
  ] as const) {
    const first = tokenize(sentence)[0]!;
    expect(first.pos).toBe("PROPN");
    expect(first.lemma).toBe(name);
  }
});

test("fix-up: after a name, in a sentence with no verb, an -s word is the verb (the model reads 'lives' as a plural noun)", () => {
  expect(tags("Adams lives in Leeds.")).toContain("lives/VERB/live");
  expect(tags("Hannah drives a Honda Civic.")).toContain("drives/VERB/drive");
  expect(tags("Maria coaches the juniors.")).toContain("coaches/VERB/coach");
});

test("fix-up: a plural noun before another noun stays the subject's, and the noun after it becomes the verb", () => {
  const tokens = tokenize("Acme releases ship on Tuesdays.");
  expect(tokens.map((t) => t.pos).slice(0, 3)).toEqual(["PROPN", "NOUN", "VERB"]);
});

test("fix-up: 'has' before what is had is the main verb", () => {
  expect(tags("Acme has 50 seats.")).toContain("has/VERB/have");
  expect(tags("Acme has renewed.")).toContain("has/AUX/have");
});

test("whitespace before each token is kept, so a span is written back as it was", () => {
  const tokens = tokenize("The office Wi-Fi password is blue-finch77.");
  expect(tokens.map((t) => (t.spaced ? ` ${t.text}` : t.text)).join("")).toBe("The office Wi-Fi password is blue-finch77.");
});

test("verbBase", () => {
  expect(["lives", "coaches", "carries", "ships", "goes"].map(verbBase)).toEqual(["live", "coach", "carry", "ship", "go"]);
});

test("a text has at least one token per run between spaces, tabs and line breaks that holds an ASCII letter or digit (change statements count them before tagging)", () => {
  const runs = (text: string): number => text.split(/[ \t\n\r]+/u).filter((w) => /[A-Za-z0-9]/.test(w)).length;
  const samples = [
    "Priya's manager is Tom.",
    "e.g. the U.S. team moved stand-ups to 9:30am (CET) -- again!",
    "in-app Wi-Fi six-week  \t sprint\r\nplan",
    "👍🏽 ok :) see https://example.com/a?b=c&d=e #tag @user",
    "naïve café résumé — “quoted” ‘text’ … 100%",
    "a\u00a0b\u2003c",
    "'' \" ' - -- --- . .. ...",
    "a-\n\u00a0\u00a0\u00a0 n't",
    "@\ufeff-\r a",
    "\u200b\u200b\u3000\u200b",
  ];
  for (const text of samples) expect(tokenize(text.trim()).length).toBeGreaterThanOrEqual(runs(text));
  fc.assert(
    fc.property(
      fc.array(
        fc.constantFrom(
          ..."a Tom 's - . , ? 9:30 $40k 😀 é n't # @ e.g. U.S. -- ... :)".split(" "),
          ...[" ", "\t", "\n", "\r", "\u00a0", "\u2003", "\u200b", "\u3000", "\ufeff"],
        ),
        { maxLength: 30 },
      ),
      (parts) => {
        const text = parts.join("").trim();
        expect(tokenize(text).length).toBeGreaterThanOrEqual(runs(text));
      },
    ),
    { numRuns: 2000 },
  );
});

test("tagging with the part-of-speech step alone gives what the full pipeline gives (capture runs only that step)", () => {
  type Nlp = { readDoc: (text: string) => { tokens: () => { out: (f?: unknown) => string[] } }; its: Record<string, unknown> };
  const winkNLP = require("wink-nlp") as (model: unknown, pipe?: string[]) => Nlp;
  const model = require("wink-eng-lite-web-model") as unknown;
  const full = winkNLP(model);
  const lean = winkNLP(model, ["pos"]);
  const read = (nlp: Nlp, text: string): string[][] => {
    const tokens = nlp.readDoc(text).tokens();
    return [tokens.out(), tokens.out(nlp.its.pos), tokens.out(nlp.its.lemma), tokens.out(nlp.its.precedingSpaces)];
  };
  const texts = [
    ...(["dev", "holdout", "blind", "blind2"] as PairSet[]).flatMap((set) => loadPairs(set).flatMap((p) => [p.older, p.newer])),
    "Dr. Smith moved to Oslo. He isn't happy about it! Is Acme Corp. still our customer? Tom's manager, Alex, left in May.",
    "user: I don't think so... maybe next week? assistant: Sure — I'll book it for Mon 9:30am (CET).",
  ];
  for (const text of texts) expect(read(lean, text)).toEqual(read(full, text));
});

test("a possessive is read the same whatever the tokenizer read before ('Tom'sU' once kept every later \"Tom's\" whole)", () => {
  const before = tokenize("Tom's manager is Rachel Green.").map((t) => t.text);
  tokenize("Tom'sU");
  tokenize("Mei'sX is here");
  expect(tokenize("Tom's manager is Rachel Green!").map((t) => t.text)).toEqual([...before.slice(0, -1), "!"]);
  expect(
    tokenize("Mei's laptop is a ThinkPad.")
      .map((t) => t.text)
      .slice(0, 2),
  ).toEqual(["Mei", "'s"]);
});
