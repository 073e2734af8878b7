/**
 * Control characters out of untrusted text before it is printed or stored as a title: C0 (but
 * tab and line breaks, which `keepBreaks` keeps), DEL and C1 (ESC is what starts a terminal escape
 * sequence; C1 0x9B is one on its own), bidirectional overrides and isolates (which reorder what a
 * terminal shows). One linear pass.
 */
// eslint-disable-next-line no-control-regex -- these are the characters removed
const CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex -- these are the characters removed
const CONTROLS_AND_BREAKS = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** `s` without control characters; tabs and line breaks become spaces unless `keepBreaks`. */
export function withoutControls(s: string, keepBreaks = false): string {
  return keepBreaks ? s.replace(CONTROLS, '') : s.replace(CONTROLS_AND_BREAKS, (c) => (c === '\t' || c === '\n' || c === '\r' ? ' ' : ''));
}
