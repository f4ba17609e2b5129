import type { AttributeRecord } from "./record";

export const PERSONAL_ATTRIBUTES: readonly AttributeRecord[] = [
  {
    attribute: "residence", cardinality: "one", value: "place",
    nouns: ["residence", "home", "place of residence", "home base", "current city", "city of residence"],
    says: ["live in", "be base in", "reside in", "be resident in", "be locate in", "make home in", "be settle in"],
    sets: ["move to", "relocate to", "move back to", "settle in", "emigrate to", "immigrate to", "move across to", "resettle in"],
    ends: ["move out of", "move away from"],
    examples: [
      ["I live in Boston.", "I moved to Denver in March.", "replace"],
      ["I'm based in Lisbon.", "I relocated to Porto last autumn.", "replace"],
      ["I live in Boston.", "I might move to Denver next year.", "keep"],
      ["I live in Boston.", "My sister lives in Denver.", "keep"],
    ],
  },
  {
    attribute: "hometown", cardinality: "one", value: "place",
    nouns: ["hometown", "home town", "native town", "native city"],
    says: ["grow up in", "be raise in", "be bring up in", "hail from", "come from", "be from", "spend childhood in"],
    examples: [
      ["I grew up in Leeds.", "Correction: I was actually raised in York, not Leeds.", "replace"],
      ["I grew up in Leeds.", "I live in Manchester now.", "keep"],
      ["I grew up in Leeds.", "My husband grew up in Cardiff.", "keep"],
    ],
  },
  {
    attribute: "birthplace", cardinality: "one", value: "place",
    nouns: ["birthplace", "place of birth", "birth place", "country of birth", "city of birth"],
    says: ["be born in", "be bear in"],
    examples: [
      ["I was born in Lagos.", "Sorry, typo: I was born in Abuja, not Lagos.", "replace"],
      ["I was born in Lagos.", "I grew up in London.", "keep"],
      ["I was born in Lagos.", "My daughter was born in Toronto.", "keep"],
    ],
  },
  {
    attribute: "home address", cardinality: "one", value: "place",
    nouns: ["address", "home address", "street address", "mailing address", "postal address", "house address"],
    says: ["live at", "be reachable by post at"],
    sets: ["move into"],
    examples: [
      ["My address is 12 Elm Street, Springfield.", "I moved into 48 Oak Avenue last weekend.", "replace"],
      ["My address is 12 Elm Street, Springfield.", "My new address is 48 Oak Avenue, Springfield.", "replace"],
      ["My address is 12 Elm Street, Springfield.", "My office address is 200 Main Street.", "keep"],
    ],
  },
  {
    attribute: "phone number", cardinality: "one", value: "phone",
    nouns: ["phone number", "phone", "number", "mobile", "mobile number", "cell", "cell number", "cellphone number", "telephone number", "telephone", "personal number", "contact number", "private number"],
    says: ["can be reach at", "be reachable at", "be reachable on", "can be reach on"],
    sets: ["{s} change {x} number to {v}", "{s} switch {x} number to {v}", "{s} change number to {v}"],
    examples: [
      ["My phone number is 415-555-0100.", "My new number is +1 415 555 0199.", "replace"],
      ["My mobile is 07700 900123.", "I changed my number to 07700 900456.", "replace"],
      ["My phone number is 415-555-0100.", "My wife's number is 415-555-0177.", "keep"],
      ["My phone number is 415-555-0100.", "My office line is 415-555-0142.", "keep"],
    ],
  },
  {
    attribute: "work phone", cardinality: "one", value: "phone",
    nouns: ["work phone", "work number", "office number", "office line", "desk phone", "desk line", "direct line", "business number", "extension"],
    examples: [
      ["My office line is 415-555-0142.", "My desk phone moved to 415-555-0160 after the reshuffle.", "replace"],
      ["My office line is 415-555-0142.", "My mobile is 415-555-0100.", "keep"],
    ],
  },
  {
    attribute: "email", cardinality: "one", value: "email",
    nouns: ["email", "email address", "e-mail", "e-mail address", "personal email", "mail address"],
    says: ["be reachable by email at", "can be email at", "get email at"],
    sets: ["change email to", "switch email to", "move email to"],
    examples: [
      ["My email is sam.lee@gmail.com.", "My new email address is sam@lee.family.", "replace"],
      ["My email is sam.lee@gmail.com.", "My work email is slee@acme.com.", "keep"],
      ["My email is sam.lee@gmail.com.", "My brother's email is tom.lee@gmail.com.", "keep"],
    ],
  },
  {
    attribute: "work email", cardinality: "one", value: "email",
    nouns: ["work email", "work email address", "office email", "business email", "company email", "corporate email"],
    examples: [
      ["My work email is slee@acme.com.", "I've moved companies, so my work email is now sam.lee@globex.io.", "replace"],
      ["My work email is slee@acme.com.", "My personal email is sam.lee@gmail.com.", "keep"],
    ],
  },
  {
    attribute: "employer", cardinality: "one", value: "organization",
    nouns: ["employer", "company", "workplace", "firm", "place of work", "day job"],
    says: ["work at", "work for", "be employ by", "be employ at", "be on staff at", "be on the payroll at"],
    sets: ["join", "start at", "start work at", "get hire at", "be hire by", "get hire by", "take a job at"],
    ends: ["leave", "quit", "resign from", "be lay off from", "get lay off from", "be fire from", "get fire from", "retire from", "walk away from"],
    examples: [
      ["I work at Stripe.", "I joined Figma last week.", "replace"],
      ["I work at Stripe.", "I quit Stripe in June.", "replace"],
      ["I work at Stripe.", "I have an interview with Figma on Friday.", "keep"],
      ["I work at Stripe.", "My partner works at Google.", "keep"],
    ],
  },
  {
    attribute: "job title", cardinality: "one", value: "thing",
    nouns: ["job title", "position", "occupation", "profession", "job role", "line of work", "vocation"],
    says: ["work as", "be employ as", "make a living as", "earn a living as"],
    sets: ["be promote to", "get promote to", "retrain as", "move into a role as"],
    ends: ["step down as", "stop work as", "quit as"],
    examples: [
      ["I work as a nurse.", "I retrained as a midwife last year.", "replace"],
      ["My job title is Senior Engineer.", "I got promoted to Staff Engineer on Monday.", "replace"],
      ["I work as a nurse.", "I'm hoping to be promoted to charge nurse.", "keep"],
    ],
  },
  {
    attribute: "manager", cardinality: "one", value: "person",
    nouns: ["manager", "boss", "supervisor", "line manager", "direct manager", "reporting manager"],
    says: ["report to", "work under", "be manage by", "be supervise by"],
    sets: ["start report to", "be move under"],
    examples: [
      ["I report to Dana.", "I now report to Marcus after the reorg.", "replace"],
      ["My manager is Dana.", "Dana's manager is Lucia.", "keep"],
      ["I report to Dana.", "Dana might move me under Marcus next quarter.", "keep"],
    ],
  },
  {
    attribute: "team", cardinality: "one", value: "thing",
    nouns: ["squad", "pod", "department", "home team", "team assignment"],
    says: ["{s} be on {v} team", "{s} be part of {v} team", "{s} be in {v} team", "{s} sit on {v} team", "{s} work on {v} team"],
    sets: ["{s} join {v} team", "{s} transfer to {v} team", "{s} move to {v} team", "{s} switch to {v} team", "{s} be reassign to {v} team"],
    ends: ["{s} leave {v} team"],
    examples: [
      ["I'm on the payments team.", "I transferred to the search team in May.", "replace"],
      ["I'm on the payments team.", "I'm pairing with the search team this week.", "keep"],
      ["I'm on the payments team.", "My friend Omar is on the search team.", "keep"],
    ],
  },
  {
    attribute: "school", cardinality: "one", value: "organization",
    nouns: ["school", "university", "college", "uni", "alma mater", "grad school", "high school"],
    says: ["study at", "be a student at", "go to school at", "attend", "be enrol at", "be enroll at", "graduate from"],
    sets: ["transfer to", "enrol at", "enroll at"],
    ends: ["drop out of", "withdraw from"],
    examples: [
      ["I study at UCLA.", "I transferred to Berkeley this spring.", "replace"],
      ["I study at UCLA.", "I'm applying to Berkeley for grad school.", "keep"],
      ["I study at UCLA.", "My roommate studies at USC.", "keep"],
    ],
  },
  {
    attribute: "major", cardinality: "one", value: "thing",
    nouns: ["major", "field of study", "degree subject", "course of study", "concentration", "area of study", "degree"],
    says: ["major in", "study", "specialise in", "specialize in", "do a degree in"],
    sets: ["{s} switch {x} major to {v}", "{s} change {x} major to {v}", "{s} switch to major in {v}"],
    examples: [
      ["I major in biology.", "I switched my major to computer science.", "replace"],
      ["I major in biology.", "I'm thinking about a minor in chemistry.", "keep"],
    ],
  },
  {
    attribute: "relationship status", cardinality: "one", value: "status",
    nouns: ["relationship status", "marital status", "civil status"],
    states: {
      single: ["{s} be single", "{s} be unattached", "break up", "split up", "{s} be newly single", "{s} be back on the market", "call it quit"],
      dating: ["date", "{s} be date", "see someone", "{s} be see someone", "{s} be in a relationship", "have a girlfriend", "have a boyfriend", "have a partner"],
      engaged: ["get engaged", "{s} be engaged", "propose", "{s} be affianced", "pop the question"],
      married: ["get married", "{s} be married", "get wed", "get hitched", "tie the knot", "{s} be wed"],
      separated: ["{s} be separated", "separate from spouse"],
      divorced: ["get divorced", "{s} be divorced", "divorce", "finalise divorce", "finalize divorce"],
      widowed: ["{s} be widowed", "{s} be a widow", "{s} be a widower"],
    },
    examples: [
      ["I'm single.", "I've been seeing someone since June.", "replace"],
      ["I'm engaged.", "I got married last Saturday!", "replace"],
      ["I'm married.", "I got divorced in 2021.", "replace"],
      ["I'm single.", "I might start dating again next year.", "keep"],
    ],
  },
  {
    attribute: "partner", cardinality: "one", value: "person",
    nouns: ["partner", "spouse", "wife", "husband", "girlfriend", "boyfriend", "fiance", "fiancee", "significant other", "other half", "better half"],
    says: ["be married to", "be engage to", "be date", "be in a relationship with", "be see"],
    sets: ["marry", "get married to", "get engage to", "start date", "get together with"],
    ends: ["break up with", "split up with", "split from", "divorce", "separate from", "leave", "{v} and {s} break up", "{v} and {s} split up"],
    examples: [
      ["My girlfriend is Maya.", "Maya and I broke up in May.", "replace"],
      ["My boyfriend is Theo.", "I married Jonah last month.", "replace"],
      ["My girlfriend is Maya.", "Maya's best friend is Kira.", "keep"],
    ],
  },
  {
    attribute: "diet", cardinality: "one", value: "status",
    nouns: ["diet", "eating habit", "dietary preference", "dietary requirement", "eating style"],
    states: {
      vegetarian: ["{s} be vegetarian", "{s} be a vegetarian", "go vegetarian", "become vegetarian", "stop eat meat", "give up meat", "quit meat", "cut out meat", "not eat meat"],
      vegan: ["{s} be vegan", "{s} be a vegan", "go vegan", "become vegan", "eat plant-based", "{s} be plant-based", "give up animal product", "cut out dairy and meat"],
      pescatarian: ["{s} be pescatarian", "{s} be a pescatarian", "go pescatarian", "only eat fish", "eat fish but no meat"],
      omnivore: ["eat meat", "eat meat again", "start eat meat", "start eat meat again", "{s} be omnivore", "{s} be an omnivore", "eat everything", "stop be vegetarian", "stop be vegan", "quit be vegan"],
      keto: ["{s} be keto", "{s} be on keto", "do keto", "go keto", "{s} be on a keto diet", "eat keto", "{s} be low-carb", "go low-carb"],
      "gluten-free": ["{s} be gluten-free", "go gluten-free", "eat gluten-free", "avoid gluten", "cut out gluten", "give up gluten"],
      paleo: ["{s} be paleo", "do paleo", "go paleo", "eat paleo"],
      halal: ["eat halal", "keep halal", "only eat halal"],
      kosher: ["keep kosher", "eat kosher", "only eat kosher"],
    },
    examples: [
      ["I'm vegetarian.", "I started eating meat again over the holidays.", "replace"],
      ["I'm vegetarian.", "I went vegan in January.", "replace"],
      ["I'm vegetarian.", "I'm thinking of going vegan.", "keep"],
      ["I'm vegetarian.", "My husband eats meat.", "keep"],
    ],
  },
  {
    attribute: "age", cardinality: "one", value: "count",
    nouns: ["age"],
    says: ["{s} be {v} year old", "{s} be {v} years of age", "{s} be age {v}"],
    sets: ["turn"],
    examples: [
      ["I'm 34 years old.", "I turned 35 last week.", "replace"],
      ["I'm 34 years old.", "My brother is 31 years old.", "keep"],
      ["I'm 34 years old.", "I'll turn 35 in June.", "keep"],
    ],
  },
  {
    attribute: "birthday", cardinality: "one", value: "date",
    nouns: ["birthday", "birth date", "date of birth", "dob", "bday", "birth day"],
    says: ["be born on", "celebrate birthday on"],
    examples: [
      ["My birthday is March 3.", "Sorry, my birthday is actually March 13, not March 3.", "replace"],
      ["My birthday is March 3.", "My wife's birthday is June 9.", "keep"],
      ["My birthday is March 3.", "We're celebrating my birthday on March 7 this year.", "keep"],
    ],
  },
  {
    attribute: "pet", cardinality: "many", value: "thing",
    nouns: ["pet", "dog", "cat", "puppy", "kitten", "fur baby", "companion animal"],
    says: ["have a pet", "own a pet", "{s} have a dog call {v}", "{s} have a cat call {v}", "{s} have a dog name {v}", "{s} have a cat name {v}"],
    sets: ["adopt", "rescue", "get a puppy", "get a kitten", "bring home"],
    ends: ["rehome", "give away", "put down", "have to put down", "{v} pass away", "{v} die", "{s} lose {x} dog", "{s} lose {x} cat"],
    examples: [
      ["I have a dog named Rex.", "I had to rehome Rex when I moved.", "replace"],
      ["I have a dog named Rex.", "We also adopted a kitten called Miso.", "keep"],
      ["I have a dog named Rex.", "My neighbour has a cat named Luna.", "keep"],
    ],
  },
  {
    attribute: "language", cardinality: "many", value: "thing",
    nouns: ["language", "spoken language", "second language", "foreign language", "language spoken"],
    says: ["speak", "be fluent in", "be conversational in", "converse in", "get by in", "be bilingual in", "be proficient in"],
    sets: ["learn", "become fluent in", "pick up"],
    ends: ["forget", "can no longer speak", "no longer speak", "stop speak", "lose {x} ability to speak"],
    examples: [
      ["I speak German.", "I've forgotten my German.", "replace"],
      ["I speak French.", "I'm also fluent in Italian.", "keep"],
      ["I speak French.", "I want to learn Japanese someday.", "keep"],
    ],
  },
  {
    attribute: "native language", cardinality: "one", value: "thing",
    nouns: ["native language", "mother tongue", "first language", "native tongue", "home language"],
    says: ["be a native speaker of", "grow up speak", "speak natively"],
    examples: [
      ["My native language is Polish.", "My mother tongue is actually Czech; I only studied Polish.", "replace"],
      ["My native language is Polish.", "I also speak English.", "keep"],
    ],
  },
  {
    attribute: "hobby", cardinality: "many", value: "thing",
    nouns: ["hobby", "pastime", "leisure activity", "free-time activity", "side interest"],
    says: ["be into", "be really into", "enjoy", "{s} do {v} for fun", "{s} do {v} in spare time"],
    sets: ["take up", "get into", "pick up the hobby of"],
    ends: ["give up", "quit", "lose interest in", "fall out of love with", "stop do"],
    examples: [
      ["I'm really into rock climbing.", "I gave up rock climbing after my shoulder surgery.", "replace"],
      ["I'm really into rock climbing.", "I took up pottery last month too.", "keep"],
      ["I'm really into rock climbing.", "I'd love to try surfing someday.", "keep"],
    ],
  },
  {
    attribute: "allergy", cardinality: "many", value: "thing",
    nouns: ["allergy", "food allergy", "allergen", "intolerance", "food intolerance"],
    says: ["be allergic to", "have an allergy to", "be intolerant of", "be intolerant to"],
    sets: ["develop an allergy to", "become allergic to", "be diagnose as allergic to"],
    ends: ["outgrow", "grow out of", "be no longer allergic to", "not be allergic to"],
    examples: [
      ["I'm allergic to penicillin.", "I'm not allergic to penicillin anymore, the retest was clean.", "replace"],
      ["I'm allergic to peanuts.", "Turns out I'm also allergic to shellfish.", "keep"],
      ["I'm allergic to peanuts.", "My son is allergic to eggs.", "keep"],
    ],
  },
  {
    attribute: "favourite colour", cardinality: "one", value: "thing",
    nouns: ["favourite colour", "favorite color", "favourite color", "favorite colour", "fave colour", "fave color"],
    examples: [
      ["My favourite colour is green.", "My favorite color is teal now.", "replace"],
      ["My favourite colour is green.", "My daughter's favourite colour is pink.", "keep"],
    ],
  },
  {
    attribute: "favourite food", cardinality: "one", value: "thing",
    nouns: ["favourite food", "favorite food", "fave food", "favourite dish", "favorite dish", "favourite meal", "favorite meal", "comfort food"],
    examples: [
      ["My favourite food is ramen.", "My favorite dish is pho now.", "replace"],
      ["My favourite food is ramen.", "My favourite dessert is tiramisu.", "keep"],
    ],
  },
  {
    attribute: "favourite band", cardinality: "one", value: "organization",
    nouns: ["favourite band", "favorite band", "fave band", "favourite group", "favorite group", "favourite artist", "favorite artist", "favourite musician", "favorite musician"],
    examples: [
      ["My favourite band is Radiohead.", "My favorite band is Big Thief now.", "replace"],
      ["My favourite band is Radiohead.", "My favourite album is In Rainbows.", "keep"],
    ],
  },
  {
    attribute: "favourite book", cardinality: "one", value: "thing",
    nouns: ["favourite book", "favorite book", "fave book", "favourite novel", "favorite novel", "all-time favourite book"],
    examples: [
      ["My favourite book is Dune.", "I've changed my mind, my favorite book is Middlemarch.", "replace"],
      ["My favourite book is Dune.", "My favourite author is Ursula K. Le Guin.", "keep"],
    ],
  },
  {
    attribute: "favourite movie", cardinality: "one", value: "thing",
    nouns: ["favourite movie", "favorite movie", "favourite film", "favorite film", "fave movie", "fave film"],
    examples: [
      ["My favourite movie is Alien.", "My favorite film is now Past Lives.", "replace"],
      ["My favourite movie is Alien.", "My favourite TV show is The Wire.", "keep"],
    ],
  },
  {
    attribute: "favourite sport", cardinality: "one", value: "thing",
    nouns: ["favourite sport", "favorite sport", "fave sport", "sport of choice"],
    examples: [
      ["My favourite sport is tennis.", "My favorite sport is padel now.", "replace"],
      ["My favourite sport is tennis.", "My favourite team is Arsenal.", "keep"],
    ],
  },
  {
    attribute: "favourite team", cardinality: "one", value: "organization",
    nouns: ["favourite team", "favorite team", "fave team", "favourite club", "favorite club", "home team"],
    says: ["root for", "cheer for", "be a fan of", "be a supporter of", "{s} be {v} fan", "{s} be {v} supporter", "{s} support {v} fc"],
    sets: ["switch allegiance to"],
    examples: [
      ["I'm an Arsenal fan.", "My favorite team is Brighton now, don't ask.", "replace"],
      ["I'm an Arsenal fan.", "My dad is a Spurs fan.", "keep"],
    ],
  },
  {
    attribute: "workout routine", cardinality: "one", value: "frequency",
    nouns: ["workout routine", "fitness routine", "exercise routine", "training schedule", "gym schedule", "workout schedule", "gym routine"],
    says: ["work out", "train", "exercise", "go to the gym", "hit the gym", "lift weight"],
    sets: ["start work out", "cut back to work out", "switch to train"],
    ends: ["stop work out", "stop go to the gym", "quit the gym"],
    examples: [
      ["I work out every day.", "I've cut back to working out twice a week.", "replace"],
      ["I work out twice a week.", "I'd like to train every day.", "keep"],
    ],
  },
  {
    attribute: "gym", cardinality: "one", value: "organization",
    nouns: ["gym", "fitness club", "health club", "fitness centre", "fitness center", "climbing gym"],
    says: ["train at", "work out at", "lift at", "climb at", "be a member at"],
    sets: ["{s} switch gym to {v}", "{s} switch {x} gym to {v}", "{s} move gym to {v}"],
    ends: ["{s} cancel {x} gym membership", "{s} quit {x} gym"],
    examples: [
      ["My gym is Equinox on 5th.", "I switched gyms to the Crunch near my office.", "replace"],
      ["My gym is Equinox on 5th.", "My wife climbs at Brooklyn Boulders.", "keep"],
    ],
  },
  {
    attribute: "bedtime", cardinality: "one", value: "time",
    nouns: ["bedtime", "bed time", "sleep time", "lights-out"],
    says: ["go to bed at", "go to sleep at", "fall asleep at", "turn in at", "hit the sack at", "sleep at"],
    sets: ["start go to bed at", "move bedtime to"],
    examples: [
      ["I go to bed at midnight.", "I go to bed at 9:30 since the baby arrived.", "replace"],
      ["I go to bed at midnight.", "My kids go to bed at 8.", "keep"],
    ],
  },
  {
    attribute: "wake time", cardinality: "one", value: "time",
    nouns: ["wake time", "wake-up time", "wake up time", "alarm", "alarm time"],
    says: ["wake up at", "get up at", "rise at", "be up at", "set alarm for"],
    sets: ["start wake up at", "start get up at", "move alarm to"],
    examples: [
      ["I wake up at 7.", "I've started getting up at 5:30 to run.", "replace"],
      ["I wake up at 7.", "On weekends I sleep until 9.", "keep"],
    ],
  },
  {
    attribute: "commute mode", cardinality: "one", value: "thing",
    nouns: ["commute", "commute mode", "way to work", "mode of transport", "commuting method"],
    says: ["commute by", "{s} get to work by {v}", "{s} travel to work by {v}", "{s} take {v} to work", "{s} ride {v} to work"],
    sets: ["start commute by", "switch to commute by"],
    examples: [
      ["I commute by train.", "I take the bus to work these days.", "replace"],
      ["I commute by train.", "I'm thinking about cycling to work in summer.", "keep"],
    ],
  },
  {
    attribute: "doctor", cardinality: "one", value: "person",
    nouns: ["doctor", "gp", "physician", "family doctor", "primary care doctor", "pcp", "family physician"],
    says: ["be a patient of", "be register with", "be see by"],
    sets: ["register with", "switch doctor to", "transfer care to", "switch gp to"],
    examples: [
      ["My GP is Dr Patel.", "I registered with Dr Okafor after the move.", "replace"],
      ["My GP is Dr Patel.", "My dermatologist is Dr Lin.", "keep"],
    ],
  },
  {
    attribute: "dentist", cardinality: "one", value: "person",
    nouns: ["dentist", "dental practice", "dental surgery", "dental office"],
    sets: ["switch dentist to", "change dentist to"],
    examples: [
      ["My dentist is Dr Alvarez.", "I switched dentists to Dr Kim on Market Street.", "replace"],
      ["My dentist is Dr Alvarez.", "My orthodontist is Dr Nguyen.", "keep"],
    ],
  },
  {
    attribute: "phone model", cardinality: "one", value: "thing",
    nouns: ["phone model", "handset", "smartphone", "mobile phone", "cellphone", "cell phone", "current phone"],
        sets: ["{s} upgrade {x} phone to {v}", "{s} switch {x} phone to {v}", "{s} replace {x} phone with {v}", "{s} trade {x} phone in for {v}"],
    examples: [
      ["My smartphone is an iPhone 12.", "I upgraded my phone to a Pixel 8 on Black Friday.", "replace"],
      ["My smartphone is an iPhone 12.", "My work phone is a Galaxy S23.", "keep"],
      ["My smartphone is an iPhone 12.", "I'm eyeing the iPhone 16.", "keep"],
    ],
  },
  {
    attribute: "laptop", cardinality: "one", value: "thing",
    nouns: ["laptop", "notebook computer", "personal laptop", "computer", "pc"],
    sets: ["{s} upgrade {x} laptop to {v}", "{s} switch {x} laptop to {v}", "{s} replace {x} laptop with {v}"],
    examples: [
      ["My laptop is a 2019 MacBook Pro.", "I finally replaced my laptop with a Framework 13.", "replace"],
      ["My laptop is a 2019 MacBook Pro.", "My work laptop is a ThinkPad X1.", "keep"],
    ],
  },
  {
    attribute: "preferred name", cardinality: "one", value: "thing",
    nouns: ["preferred name", "nickname", "nick", "moniker", "name I go by", "chosen name"],
    says: ["go by", "prefer to be call", "be call", "answer to", "like to be call"],
    sets: ["start go by", "change name to"],
    examples: [
      ["I go by Alex.", "I've started going by Lex.", "replace"],
      ["I go by Alex.", "My brother goes by AJ.", "keep"],
    ],
  },
  {
    attribute: "pronouns", cardinality: "one", value: "thing",
    nouns: ["pronoun", "preferred pronoun", "pronoun set"],
    says: ["{s} use {v} pronoun", "{s} go by {v} pronoun"],
    sets: ["{s} start use {v} pronoun", "{s} switch to {v} pronoun"],
    examples: [
      ["My pronouns are she/her.", "I now use they/them pronouns.", "replace"],
      ["My pronouns are she/her.", "My partner's pronouns are he/him.", "keep"],
    ],
  },
  {
    attribute: "time zone", cardinality: "one", value: "thing",
    nouns: ["time zone", "timezone", "tz", "local time zone"],
    says: ["{s} be on {v} time", "{s} be in {v} time zone", "{s} work on {v} time"],
    sets: ["{s} switch to {v} time", "{s} move to {v} time zone"],
    examples: [
      ["I'm on Pacific time.", "I'm on Eastern time now that I've moved.", "replace"],
      ["I'm on Pacific time.", "Most of my team is on Central European time.", "keep"],
    ],
  },
  {
    attribute: "body weight", cardinality: "one", value: "thing",
    nouns: ["weight", "body weight"],
    says: ["weigh", "{s} be {v} heavy", "tip the scale at"],
    sets: ["{s} slim down to {v}", "{s} weigh in at {v}"],
    examples: [
      ["I weigh 82 kg.", "I weigh 76 kg now after the summer.", "replace"],
      ["I weigh 82 kg.", "My goal is to get down to 75 kg.", "keep"],
    ],
  },
  {
    attribute: "height", cardinality: "one", value: "thing",
    nouns: ["height", "stature"],
    says: ["{s} be {v} tall", "{s} stand {v} tall", "{s} measure {v} tall"],
    examples: [
      ["I'm 5'9\" tall.", "My height is actually 5'10\", I measured again.", "replace"],
      ["I'm 5'9\" tall.", "My son is 6'1\" tall.", "keep"],
    ],
  },
  {
    attribute: "salary", cardinality: "one", value: "money",
    nouns: ["salary", "pay", "wage", "income", "compensation", "base pay", "base salary", "annual salary", "comp", "take-home pay", "earnings"],
    says: ["earn", "make", "be pay", "get pay", "take home"],
    sets: ["get a raise to", "be bump to", "get bump to", "be raise to"],
    examples: [
      ["I earn $95k a year.", "I got a raise to $110k this month.", "replace"],
      ["I earn $95k a year.", "I'm going to ask for $120k at my review.", "keep"],
      ["I earn $95k a year.", "My partner makes about $80k.", "keep"],
    ],
  },
  {
    attribute: "rent", cardinality: "one", value: "money",
    nouns: ["rent", "monthly rent", "rent payment", "rental cost"],
    says: ["{s} pay {v} in rent", "{s} pay {v} for rent", "{s} pay {v} rent", "{s} rent for {v}"],
    sets: ["{s} rent go up to {v}", "{s} rent rise to {v}", "{s} rent be raise to {v}", "{x} raise {s} rent to {v}"],
    examples: [
      ["I pay $2,100 in rent.", "My rent went up to $2,350 at renewal.", "replace"],
      ["I pay $2,100 in rent.", "My landlord might raise the rent next year.", "keep"],
    ],
  },
  {
    attribute: "health condition", cardinality: "many", value: "thing",
    nouns: ["health condition", "medical condition", "condition", "diagnosis", "chronic condition", "illness", "chronic illness"],
    says: ["suffer from", "have been diagnose with", "be diagnose with"],
    sets: ["get diagnose with", "come down with", "develop a case of"],
    ends: ["recover from", "be cure of", "be in remission from", "get over", "no longer have", "be clear of"],
    examples: [
      ["I was diagnosed with asthma as a kid.", "I've also been diagnosed with migraines.", "keep"],
      ["I was diagnosed with long COVID in 2022.", "I've fully recovered from long COVID.", "replace"],
      ["I was diagnosed with asthma as a kid.", "My doctor wonders if I have sleep apnea.", "keep"],
    ],
  },
  {
    attribute: "medication", cardinality: "many", value: "thing",
    nouns: ["medication", "medicine", "med", "prescription", "meds", "drug regimen"],
    says: ["take", "be prescribe", "be on a course of"],
    sets: ["be put on", "start take", "get prescribe", "start on"],
    ends: ["stop take", "come off", "be take off", "wean off", "quit take"],
    examples: [
      ["I take sertraline.", "I came off sertraline in April.", "replace"],
      ["I take sertraline.", "I was also put on vitamin D.", "keep"],
      ["I take sertraline.", "My doctor may switch me to something else.", "keep"],
    ],
  },
  {
    attribute: "shoe size", cardinality: "one", value: "thing",
    nouns: ["shoe size", "foot size", "size in shoe"],
    says: ["{s} wear a size {v} shoe", "{s} wear size {v}", "{s} take a size {v}"],
    examples: [
      ["My shoe size is 9.", "My feet grew in pregnancy, my shoe size is 10 now.", "replace"],
      ["My shoe size is 9.", "My husband's shoe size is 11.", "keep"],
    ],
  },
  {
    attribute: "blood type", cardinality: "one", value: "thing",
    nouns: ["blood type", "blood group"],
    examples: [
      ["My blood type is A positive.", "My blood type is actually A negative, the lab corrected it.", "replace"],
      ["My blood type is A positive.", "My daughter's blood type is O positive.", "keep"],
    ],
  },
  {
    attribute: "religion", cardinality: "one", value: "thing",
    nouns: ["religion", "faith", "religious affiliation", "belief"],
    says: ["practise", "practice", "be a practising", "be a practicing"],
    sets: ["convert to"],
    ends: ["lose faith in", "stop practise", "stop practice", "leave the faith of"],
    examples: [
      ["I'm a practising Catholic.", "I converted to Judaism when we married.", "replace"],
      ["I'm a practising Catholic.", "My wife is a practising Hindu.", "keep"],
    ],
  },
  {
    attribute: "citizenship", cardinality: "many", value: "place",
    nouns: ["citizenship", "nationality", "passport"],
    says: ["be a citizen of", "hold citizenship of", "hold a passport from", "have citizenship in"],
    sets: ["become a citizen of", "naturalise in", "naturalize in", "get citizenship in", "be naturalise in"],
    ends: ["renounce citizenship of", "give up citizenship of", "lose citizenship of"],
    examples: [
      ["I'm a citizen of Canada.", "I just became a US citizen as well.", "keep"],
      ["I'm a citizen of Canada.", "I'm no longer a citizen of Canada, I renounced it.", "replace"],
    ],
  },
  {
    attribute: "smoking status", cardinality: "one", value: "status",
    nouns: ["smoking status", "smoking habit"],
    states: {
      smoker: ["smoke", "{s} be a smoker", "start smoke again", "pick up smoke", "smoke again"],
      "non-smoker": ["quit smoke", "quit smoking", "stop smoke", "stop smoking", "give up smoke", "give up smoking", "give up cigarette", "{s} be a non-smoker", "never smoke", "{s} be smoke-free", "kick the habit"],
      vaper: ["vape", "{s} be a vaper", "switch to vape"],
    },
    examples: [
      ["I smoke.", "I quit smoking in January.", "replace"],
      ["I smoke.", "I'm trying to cut down.", "keep"],
    ],
  },
  {
    attribute: "emergency contact", cardinality: "one", value: "person",
    nouns: ["emergency contact", "next of kin", "in-case-of-emergency contact", "ice contact"],
    sets: ["{s} change {x} emergency contact to {v}", "{s} update {x} emergency contact to {v}"],
    examples: [
      ["My emergency contact is Ruth, my mum.", "I updated my emergency contact to Ben, my partner.", "replace"],
      ["My emergency contact is Ruth, my mum.", "Ruth's emergency contact is Dev, my uncle.", "keep"],
    ],
  },
  {
    attribute: "username", cardinality: "one", value: "thing",
    nouns: ["username", "handle", "user name", "screen name", "github username", "twitter handle", "gamertag", "user id"],
    sets: ["{s} change {x} handle to {v}", "{s} change {x} username to {v}", "{s} rename {x} account to {v}"],
    examples: [
      ["My GitHub username is octo-sam.", "I changed my GitHub handle to samlee-dev.", "replace"],
      ["My GitHub username is octo-sam.", "My Steam username is sammyboi.", "keep"],
    ],
  },
  {
    attribute: "coffee order", cardinality: "one", value: "thing",
    nouns: ["coffee order", "usual order", "go-to drink", "usual drink", "favourite drink", "favorite drink"],
    says: ["always order", "usually order"],
    sets: ["{s} switch {x} order to {v}", "{s} change {x} order to {v}"],
    examples: [
      ["My usual order is an oat flat white.", "My usual order is a cortado now.", "replace"],
      ["My usual order is an oat flat white.", "My colleague always orders a mocha.", "keep"],
    ],
  },
];
