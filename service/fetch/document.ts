/**
 * The document extraction reads: Readability's own light DOM (`@mozilla/readability/JSDOMParser`,
 * the DOM Readability's test suite runs on), built from `htmlparser2`'s events, the tokenizer
 * linkedom uses, so that the tree is the one linkedom builds.
 *
 * Why not linkedom: Readability on a linkedom document read 19-21 shared pages per CPU second, on
 * this DOM 45-48 with the same text (bench/extract.ts): a linkedom node carries an event target
 * (a WeakMap entry and a Map each), its `querySelectorAll` compiles a CSS selector on every call
 * Readability makes, and its `style` parses the attribute into an object. JSDOMParser's own parser
 * is faster still but stops at the first tag closed out of order (48 of 121 gathered pages gave
 * nothing), which htmlparser2 closes as browsers do.
 *
 * What the page never shows is left out as it is read: comments, `<script>` (but JSON-LD, which
 * the metadata reads), `<style>`, `<template>`, and what is inside an `<svg>`.
 */
import { createRequire } from 'node:module';
import { Parser } from 'htmlparser2';

/** The part of JSDOMParser's DOM that extraction uses (Readability uses more). */
export interface LNode {
  nodeType: number;
  parentNode: LElement | null;
  childNodes: LNode[];
  textContent: string;
  nextSibling: LNode | null;
  firstChild: LNode | null;
  lastChild: LNode | null;
  remove(): LNode;
}
export interface LElement extends LNode {
  tagName: string;
  localName: string;
  children: LElement[];
  innerHTML: string;
  getAttribute(name: string): string | undefined;
  setAttribute(name: string, value: string): void;
  removeAttribute(name: string): void;
  hasAttribute(name: string): boolean;
  getElementsByTagName(tag: string): LElement[];
  appendChild(node: LNode): void;
}
export interface LDocument {
  documentElement: LElement;
  head: LElement;
  body: LElement;
  title: string;
  documentURI: string;
  getElementsByTagName(tag: string): LElement[];
  createElement(tag: string): LElement;
  createTextNode(text: string): LNode;
}

const JSDOMParser = createRequire(import.meta.url)('@mozilla/readability/JSDOMParser.js') as new () => {
  parse(html: string, url?: string): LDocument;
};

/** Elements whose content is never shown: not put in the tree. */
const UNSEEN = new Set(['script', 'style', 'template', 'noembed']);
/** Elements kept without their content: Readability weighs an `<svg>` (an icon) as an element. */
const EMPTIED = new Set(['svg']);
const TAG = /^[a-z][a-z0-9:-]*$/;
/**
 * Elements nested deeper than this are not put in the tree (their text goes to the element at
 * this depth): Readability walks each node's ancestors, which on 100,000 nested `<div>` is
 * quadratic. Real pages nest 20 to 40 deep.
 */
export const MAX_DEPTH = 128;
const ATTRIBUTE = /^[a-z_:][-a-z0-9_:.]*$/;
/**
 * The most open elements htmlparser2 is left to track. Its stack of open elements is an array
 * with the innermost first: each open tag is an `unshift` and each end tag an `indexOf` over it,
 * so a page of 320,000 unclosed `<div>` (1.6 MB) cost 30 s, quadratic. Past this many the
 * outermost half is dropped from its stack (their end tags are then ignored, and the end of the
 * page closes none of them: none is in the tree's text anyway past MAX_DEPTH), so each tag costs
 * at most this much. Real pages keep 20 to 40 open.
 */
export const MAX_OPEN = 1024;

/** htmlparser2's Parser's own stacks (private in its types; 10.x, innermost first). */
interface ParserStacks {
  stack: string[];
  foreignContext: boolean[];
}

/** Parse a page (or a fragment: it lands in the body) into Readability's light DOM. */
export function parseDocument(html: string, url = 'about:blank'): LDocument {
  const doc = new JSDOMParser().parse('<html><head></head><body></body></html>', url);
  const { documentElement: root, head, body } = doc;
  // the element text and children go to (null: an element never shown), and what it was before each open element
  let cur: LElement | null = body;
  const stack: (LElement | null)[] = [];
  const copyAttributes = (el: LElement, attribs: Record<string, string>) => {
    for (const k in attribs) if (ATTRIBUTE.test(k)) el.setAttribute(k, attribs[k]!);
  };
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        stack.push(cur);
        const open = parser as unknown as ParserStacks;
        if (open.stack.length > MAX_OPEN) open.stack.length = MAX_OPEN / 2;
        if (open.foreignContext.length > MAX_OPEN) open.foreignContext.length = MAX_OPEN / 2;
        if (!cur) return;
        if (name === 'html' || name === 'body') {
          copyAttributes(name === 'html' ? root : body, attribs);
          cur = body;
        } else if (name === 'head') cur = head;
        else if (UNSEEN.has(name) && !(name === 'script' && /ld\+json/i.test(attribs.type ?? ''))) cur = null;
        else if (stack.length > MAX_DEPTH) return;
        else if (TAG.test(name)) {
          const el = doc.createElement(name);
          copyAttributes(el, attribs);
          cur.appendChild(el);
          cur = EMPTIED.has(name) ? null : el;
        }
      },
      ontext(text) {
        if (!cur) return;
        const last = cur.lastChild;
        if (last?.nodeType === 3) last.textContent += text;
        else cur.appendChild(doc.createTextNode(text));
      },
      onclosetag(name) {
        if (name === 'title' && cur?.localName === 'title' && !doc.title) doc.title = cur.textContent.replace(/\s+/g, ' ').trim();
        cur = stack.length ? stack.pop()! : body;
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  return doc;
}

/** Does `el` hold an element with one of these tag names (upper case)? */
export function holds(el: LElement, tags: Set<string>): boolean {
  for (const c of el.children) if (tags.has(c.tagName) || holds(c, tags)) return true;
  return false;
}

/** The elements under `el` (in document order) with one of these tag names (upper case). */
export function elementsOf(el: LElement | LDocument, tags: Set<string>): LElement[] {
  const out: LElement[] = [];
  const walk = (e: LElement) => {
    for (const c of e.children) {
      if (tags.has(c.tagName)) out.push(c);
      walk(c);
    }
  };
  walk('children' in el ? el : el.documentElement);
  return out;
}
