/**
 * Markup taken out of untrusted text in one pass (linear time in the text's length), in place of
 * the patterns `<[^>]*>` and `<script[\s\S]*?</script>`: on a text of many `<` and no `>` such a
 * pattern tries every `<` against the whole rest of the text (quadratic: 120,000 `<` held the
 * event loop for minutes). Here each search for a closing `>` (or `</script`, `-->`) that finds
 * none is remembered, so no stretch of the text is scanned twice. Semantics match the patterns
 * they replace: a tag runs from `<` to the first `>` after it; a `<` with no `>` after it is text.
 */

/** The first index of `needle` in `haystack` at or after `from`, searching each stretch once. */
class Finder {
  /** the last search's answer, -1 when there is none from `after` on */
  private at = -2;
  private after = -1;
  constructor(
    private readonly haystack: string,
    private readonly needle: string,
  ) {}
  find(from: number): number {
    if (this.at === -1 && from >= this.after) return -1;
    if (this.at >= from) return this.at;
    this.after = from;
    this.at = this.haystack.indexOf(this.needle, from);
    return this.at;
  }
}

export interface StripOptions {
  /** what a removed tag becomes (default ''); `<br>` and `</p>` become `breakWith` when given */
  replaceWith?: string;
  breakWith?: string;
  /** drop the content of `<script>` and `<style>` (up to their closing tag) and of comments */
  dropScripts?: boolean;
  /** what a dropped script, style or comment becomes (default: `replaceWith`) */
  scriptWith?: string;
  /** stop once the output holds this many characters (the rest of the input is not read) */
  maxOutput?: number;
}

const lower = (c: number) => (c >= 65 && c <= 90 ? c + 32 : c);

/** Whether `s` at `i` starts with the lower-case ASCII `word` (case-insensitive), followed by a non-name character. */
function startsWithName(s: string, i: number, word: string): boolean {
  for (let k = 0; k < word.length; k++) if (lower(s.charCodeAt(i + k)) !== word.charCodeAt(k)) return false;
  const next = s.charCodeAt(i + word.length);
  return !((next >= 97 && next <= 122) || (next >= 65 && next <= 90) || (next >= 48 && next <= 57) || next === 45);
}

/** Text of `s` without its tags (and, with `dropScripts`, without scripts, styles and comments). */
export function stripTags(s: string, o: StripOptions = {}): string {
  const replaceWith = o.replaceWith ?? '';
  const scriptWith = o.scriptWith ?? replaceWith;
  const max = o.maxOutput ?? Infinity;
  const gt = new Finder(s, '>');
  const lowerS = o.dropScripts ? s.toLowerCase() : '';
  const closeScript = o.dropScripts ? new Finder(lowerS, '</script') : null;
  const closeStyle = o.dropScripts ? new Finder(lowerS, '</style') : null;
  const closeComment = o.dropScripts ? new Finder(s, '-->') : null;
  let out = '';
  let i = 0;
  while (i < s.length && out.length < max) {
    const lt = s.indexOf('<', i);
    if (lt < 0) {
      out += s.slice(i);
      break;
    }
    out += s.slice(i, lt);
    if (o.dropScripts) {
      if (s.startsWith('<!--', lt)) {
        const end = closeComment!.find(lt + 4);
        if (end >= 0) {
          out += scriptWith;
          i = end + 3;
          continue;
        }
      }
      const which = startsWithName(s, lt + 1, 'script') ? closeScript : startsWithName(s, lt + 1, 'style') ? closeStyle : null;
      if (which) {
        const end = which.find(lt + 1);
        const close = end >= 0 ? gt.find(end) : -1;
        if (close >= 0) {
          out += scriptWith;
          i = close + 1;
          continue;
        }
      }
    }
    const end = gt.find(lt + 1);
    if (end < 0) {
      // no `>` after this `<`: the rest is text
      out += s.slice(lt);
      break;
    }
    const isBreak = o.breakWith !== undefined && (startsWithName(s, lt + 1, 'br') || (s.charCodeAt(lt + 1) === 47 && startsWithName(s, lt + 2, 'p')));
    out += isBreak ? o.breakWith : replaceWith;
    i = end + 1;
  }
  return out.length > max ? out.slice(0, max) : out;
}

/** `s` with every run of whitespace (and no-break spaces) one space, trimmed: a linear scan. */
export function collapseSpace(s: string): string {
  return s.replace(/[\s\u00a0]+/g, ' ').trim();
}
