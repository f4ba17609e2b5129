/**
 * Question frames: how a question asks for an attribute when none of the attribute lexicon's own
 * phrases is in it ("what do I do for a living?" asks for a job title, and no fact states a job
 * title with "for a living"). Each record names an attribute of the lexicon
 * (src/capture/attributes) and the frames, in lemma form like the lexicon's phrases; a test runs
 * every example through the intent reader and checks the record's attribute comes out.
 *
 * Most intents need no record here: every noun and phrase of the lexicon names its attribute in a
 * question as in a fact ("where did I grow up?" by the hometown record's "grow up in"). A frame
 * belongs here only when questions say it and statements do not.
 */

export interface QuestionFrame {
  /** An attribute of the attribute lexicon. */
  readonly attribute: string;
  readonly frames: readonly string[];
  /** Questions that must read as this attribute. */
  readonly examples: readonly string[];
}

// biome-ignore format: a data table, one record per block
export const QUESTION_FRAMES: readonly QuestionFrame[] = [
  { attribute: "job title", frames: ["for a living", "do for work", "line of work", "what job"],
    examples: ["what do I do for a living?", "what does Priya do for work?", "what line of work is Sam in?"] },
  { attribute: "employer", frames: ["who employ", "where work"],
    examples: ["who employs Dana?", "where does Tom work?"] },
  { attribute: "birthday", frames: ["when be born", "birth"],
    examples: ["when was I born?", "what is the date of my birth?"] },
  { attribute: "residence", frames: ["where live", "where be base", "where stay"],
    examples: ["where do I live?", "where is Ana based?"] },
  { attribute: "commute mode", frames: ["get to work", "get to the office", "travel to work", "commute"],
    examples: ["how do I get to the office?", "how does Sam travel to work?"] },
  { attribute: "wake time", frames: ["wake up", "get up", "get out of bed"],
    examples: ["what time do I wake up?", "when does Ana get up?"] },
  { attribute: "bedtime", frames: ["go to bed", "go to sleep"],
    examples: ["when do I go to bed?"] },
  { attribute: "partner", frames: ["marry to", "who marry", "who date"],
    examples: ["who am I married to?", "who is Sam dating?"] },
  { attribute: "hobby", frames: ["for fun", "free time", "spare time", "in the evening", "at the weekend"],
    examples: ["what do I do for fun?", "what does Ana do in her spare time?"] },
  { attribute: "workout routine", frames: ["stay fit", "keep fit", "stay in shape", "keep in shape"],
    examples: ["how do I stay fit?", "what does Tom do to keep in shape?"] },
  { attribute: "language", frames: ["what language"],
    examples: ["what languages does Priya speak?"] },
  { attribute: "school", frames: ["where study", "go to university", "go to college", "go to school"],
    examples: ["where did I go to university?", "where did Sam study?"] },
  { attribute: "hometown", frames: ["where be from", "raise in", "where grow"],
    examples: ["where is Ana from?", "which city was I raised in?"] },
];
