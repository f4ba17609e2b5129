/**
 * Which of many word lists a text holds a word of, in one pass over the text (an Aho–Corasick
 * automaton over every word). The prefilter asks this of a few hundred lists per fact; one
 * `includes` per word cost more than the patterns it let capture skip.
 *
 * Lists are added as patterns are first used; the automaton is rebuilt, when lists were added,
 * before the next new text is scanned, and a list added since the last build is checked word by
 * word until then, so the answer never depends on when a list arrived.
 */

/** Words are ASCII (see prefilter.ts); any other character restarts the match. */
const ASCII = 128;

export class WordScanner {
  private readonly lists: (readonly string[])[] = [];
  private readonly ids = new Map<string, number>();
  /** Lists in the automaton: those added later are checked one word at a time. */
  private built = 0;
  /** The automaton's moves: row per node, column per character symbol (0: a character no word holds). */
  private delta: Int32Array = new Int32Array(1);
  /** Each ASCII character's symbol. */
  private symbolOf: Uint8Array = new Uint8Array(ASCII);
  private width = 1;
  /** Ids of the lists a match ending at each node meets (its own words and its suffixes'). */
  private outputs: (readonly number[])[] = [[]];
  /** The scan in which each list was last met: met in the current scan when equal to `scan`. */
  private metIn: Uint32Array = new Uint32Array(0);
  private scan = 0;
  private scanned: string | null = null;

  /** The id of a word list, the same for the same words. */
  add(words: readonly string[]): number {
    const key = [...words].sort().join("\u0000");
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.lists.length;
      this.lists.push(words);
      this.ids.set(key, id);
    }
    return id;
  }

  /** Whether `text` holds a word of list `id`. */
  holds(id: number, text: string): boolean {
    if (text !== this.scanned) this.scanText(text);
    if (id >= this.built) return this.lists[id]!.some((word) => text.includes(word));
    return this.metIn[id] === this.scan;
  }

  private scanText(text: string): void {
    if (this.built < this.lists.length) this.build();
    this.scanned = text;
    this.scan += 1;
    if (this.scan === 0xffffffff) {
      this.metIn.fill(0);
      this.scan = 1;
    }
    const { delta, symbolOf, width, outputs, metIn, scan } = this;
    let state = 0;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      // A character no word holds sends the automaton back to its start.
      const symbol = code < ASCII ? symbolOf[code]! : 0;
      state = symbol === 0 ? 0 : delta[state * width + symbol]!;
      const met = outputs[state]!;
      for (let j = 0; j < met.length; j++) metIn[met[j]!] = scan;
    }
  }

  /**
   * A trie of every word, then its full transition table (each node's move on each character any
   * word holds, failure links folded in), so a scan is one table read per character.
   */
  private build(): void {
    const symbolOf = new Uint8Array(ASCII);
    let width = 1;
    for (const words of this.lists) {
      for (const word of words) {
        for (let i = 0; i < word.length; i++) {
          const code = word.charCodeAt(i);
          if (symbolOf[code] === 0) symbolOf[code] = width++;
        }
      }
    }
    const edges = new Map<number, number>();
    const own: number[][] = [[]];
    this.lists.forEach((words, id) => {
      for (const word of words) {
        let node = 0;
        for (let i = 0; i < word.length; i++) {
          const key = node * width + symbolOf[word.charCodeAt(i)]!;
          let next = edges.get(key);
          if (next === undefined) {
            next = own.length;
            own.push([]);
            edges.set(key, next);
          }
          node = next;
        }
        own[node]!.push(id);
      }
    });
    const delta = new Int32Array(own.length * width);
    const fail = new Int32Array(own.length);
    const outputs: (readonly number[])[] = new Array<readonly number[]>(own.length);
    outputs[0] = [];
    // Breadth first: a node's failure link (its longest proper suffix in the trie) is shallower,
    // so its row is complete when the node's row is filled.
    const queue: number[] = [0];
    for (let head = 0; head < queue.length; head++) {
      const node = queue[head]!;
      for (let symbol = 1; symbol < width; symbol++) {
        const child = edges.get(node * width + symbol);
        if (child === undefined) {
          delta[node * width + symbol] = node === 0 ? 0 : delta[fail[node]! * width + symbol]!;
          continue;
        }
        delta[node * width + symbol] = child;
        fail[child] = node === 0 ? 0 : delta[fail[node]! * width + symbol]!;
        const inherited = outputs[fail[child]!]!;
        outputs[child] = inherited.length === 0 ? own[child]! : [...new Set([...own[child]!, ...inherited])];
        queue.push(child);
      }
    }
    this.delta = delta;
    this.symbolOf = symbolOf;
    this.width = width;
    this.outputs = outputs;
    const metIn = new Uint32Array(this.lists.length);
    metIn.set(this.metIn.subarray(0, Math.min(this.metIn.length, metIn.length)));
    this.metIn = metIn;
    this.built = this.lists.length;
    this.scanned = null;
  }
}
