/** unbzip2-stream ships no types: a through-stream that inflates bzip2. */
declare module 'unbzip2-stream' {
  import type { Duplex } from 'node:stream';
  export default function unbzip2(): Duplex;
}
