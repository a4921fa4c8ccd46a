/**
 * Comparing what a model wrote with what a feature says, by meaning rather than spelling, with rules that can be
 * explained (pure, no model): words are lower-cased, split, stripped of inflection by a small stemmer ("Typed",
 * "typing" and "types" are "type"; "clicked" is "click"), mapped through a short table of interface synonyms
 * ("field", "box" and "input" are one word; "tick" is "check"), and stop-words ("the", "I", "into") are dropped.
 * Two texts are then compared by the share of words they have in common.
 */
import { comparableText } from '../handoff/evidence.js';

/** Words that carry no meaning for matching a step: articles, pronouns, prepositions, auxiliaries, fillers. */
const STOP_WORDS = new Set(
  (
    'a an the i we you he she it its this that these those my our your me us them they their ' +
    'to into in inside on onto at of for with by from via as about over under within ' +
    'and or but then than so also just now once there here which who whom whose what when while ' +
    'is are was were be been being am has have had do does did doing done will would should can could may might must ' +
    'e g eg ie etc step steps successfully correctly properly indeed really actually simply first-time ' +
    'some any very already following follow below above same'
  ).split(/\s+/),
);

/** Irregular forms mapped to their base (what the suffix rules cannot reach). */
const IRREGULAR: Record<string, string> = {
  shown: 'show',
  saw: 'see',
  seen: 'see',
  went: 'go',
  gone: 'delete',
  got: 'get',
  made: 'make',
  wrote: 'write',
  written: 'write',
  chose: 'choose',
  chosen: 'choose',
  found: 'find',
  kept: 'keep',
  began: 'begin',
  left: 'left',
  said: 'say',
  '1st': 'first',
  '2nd': 'second',
  '3rd': 'third',
  one: '1',
  two: '2',
  three: '3',
  four: '4',
  five: '5',
};

/**
 * Interface words that mean the same thing in a step (after stemming): a control is a "field" whether the step
 * says box, input or text field; ticking is checking; a page is reloaded or refreshed.
 */
const SYNONYMS: Record<string, string> = {
  box: 'field',
  input: 'field',
  textbox: 'field',
  textfield: 'field',
  searchbox: 'field',
  tap: 'click',
  tick: 'check',
  mark: 'check',
  untick: 'uncheck',
  unmark: 'uncheck',
  refresh: 'reload',
  visit: 'open',
  navigat: 'open',
  launch: 'open',
  display: 'show',
  appear: 'show',
  say: 'show',
  read: 'show',
  contain: 'show',
  list: 'list',
  remov: 'delete',
  delet: 'delete',
  disappear: 'delete',
  creat: 'add',
  append: 'add',
  task: 'todo',
  item: 'todo',
  entry: 'todo',
  blank: 'empty',
  stay: 'still',
  remain: 'still',
  btn: 'button',
};

const VOWEL = /[aeiou]/;

function isConsonant(word: string, index: number): boolean {
  const char = word[index];
  if (char === undefined || VOWEL.test(char)) return false;
  // "y" after a consonant sounds like a vowel (typ-, tidy).
  return char !== 'y' || index === 0 || !isConsonant(word, index - 1);
}

function hasVowel(stem: string): boolean {
  for (let index = 0; index < stem.length; index += 1) if (!isConsonant(stem, index)) return true;
  return false;
}

/** Porter's measure: the number of vowel-consonant sequences in a stem (roughly, its syllables). */
function measure(stem: string): number {
  let count = 0;
  let previousVowel = false;
  for (let index = 0; index < stem.length; index += 1) {
    const vowel = !isConsonant(stem, index);
    if (previousVowel && !vowel) count += 1;
    previousVowel = vowel;
  }
  return count;
}

/** Ends consonant-vowel-consonant, the last not w, x or y (hop, not, typ): such stems take back their "e". */
function endsShortSyllable(stem: string): boolean {
  const n = stem.length;
  if (n < 3) return false;
  return (
    isConsonant(stem, n - 3) && !isConsonant(stem, n - 2) && isConsonant(stem, n - 1) && !/[wxy]$/.test(stem)
  );
}

/** The stem of a -ed/-ing form: doubled consonants undone (clicked, dropped), a lost "e" restored (typed → type). */
function fromVerbSuffix(stem: string): string {
  if (/([^aeiouslz])\1$/.test(stem) && stem.length > 3) return stem.slice(0, -1);
  if (measure(stem) === 1 && endsShortSyllable(stem)) return `${stem}e`;
  return stem;
}

/**
 * A small inflectional stemmer (Porter-like, English): plural and third-person -s, -es, -ies; -ed, -ied; -ing;
 * a final silent "e" on longer stems (replace, replaced → replac). Short words are left alone.
 */
export function stem(word: string): string {
  const irregular = IRREGULAR[word];
  if (irregular) return irregular;
  if (word.length <= 3 || /\d/.test(word)) return word;
  let base = word;
  if (/ies$/.test(base) && base.length > 4) base = `${base.slice(0, -3)}y`;
  else if (/(sh|ch|x|z|ss)es$/.test(base)) base = base.slice(0, -2);
  else if (/[^sui]s$/.test(base)) base = base.slice(0, -1);
  if (/ied$/.test(base) && base.length > 4) base = `${base.slice(0, -3)}y`;
  else if (/[^e]ed$/.test(base) && hasVowel(base.slice(0, -2))) base = fromVerbSuffix(base.slice(0, -2));
  else if (/ing$/.test(base) && base.length > 5 && hasVowel(base.slice(0, -3)))
    base = fromVerbSuffix(base.slice(0, -3));
  return withoutSilentE(base);
}

/** Porter's rule for a final "e": dropped on longer stems (replace → replac) but kept after a short syllable (type, note). */
function withoutSilentE(base: string): string {
  if (!base.endsWith('e') || base.length <= 3) return base;
  const rest = base.slice(0, -1);
  const syllables = measure(rest);
  return syllables > 1 || (syllables === 1 && !endsShortSyllable(rest)) ? rest : base;
}

/** The canonical word for a token: stemmed, then through the synonym table. */
export function canonicalWord(token: string): string {
  const stemmed = stem(token);
  return SYNONYMS[stemmed] ?? stemmed;
}

/** The tokens of a text (letters and digits, apostrophes inside words dropped), in order. */
export function tokens(text: string): string[] {
  return comparableText(text)
    .replace(/(\p{L})'(\p{L})/gu, '$1$2')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/** The meaningful words of a text, canonical, stop-words dropped (duplicates kept, in order). */
export function contentWords(text: string): string[] {
  return tokens(text)
    .filter((token) => !STOP_WORDS.has(token))
    .map(canonicalWord)
    .filter((word) => !STOP_WORDS.has(word));
}

/** How much of two word sets overlaps. */
export interface Overlap {
  /** Words in both. */
  shared: number;
  /** Share of `reference`'s words that `candidate` repeats. */
  recall: number;
  /** Share of `candidate`'s words that are in `reference`. */
  precision: number;
  /** Harmonic mean of recall and precision (0 when nothing is shared). */
  score: number;
}

/** Compares a candidate text's words with a reference text's words (as sets). */
export function overlap(candidate: readonly string[], reference: readonly string[]): Overlap {
  const given = new Set(candidate);
  const wanted = new Set(reference);
  let shared = 0;
  for (const word of given) if (wanted.has(word)) shared += 1;
  const recall = wanted.size ? shared / wanted.size : 0;
  const precision = given.size ? shared / given.size : 0;
  const score = shared ? (2 * recall * precision) / (recall + precision) : 0;
  return { shared, recall, precision, score };
}
