/** A small PNG reader for tests (8-bit RGB/RGBA, not interlaced: what Chromium's screenshots are). */
import zlib from 'node:zlib';

export interface Image {
  width: number;
  height: number;
  channels: number;
  pixels: Buffer;
}

export function readPng(buf: Buffer): Image {
  if (buf.readUInt32BE(0) !== 0x89504e47) throw new Error('not a PNG');
  let off = 8;
  let width = 0,
    height = 0,
    depth = 0,
    color = 0,
    interlace = 0;
  const idat: Buffer[] = [];
  while (off < buf.length) {
    const len = buf.readUInt32BE(off);
    const type = buf.toString('ascii', off + 4, off + 8);
    const data = buf.subarray(off + 8, off + 8 + len);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      depth = data[8]!;
      color = data[9]!;
      interlace = data[12]!;
    } else if (type === 'IDAT') idat.push(data);
    off += 12 + len;
  }
  if (depth !== 8 || (color !== 2 && color !== 6) || interlace) throw new Error(`unsupported PNG (depth ${depth}, color ${color}, interlace ${interlace})`);
  const channels = color === 6 ? 4 : 3;
  const raw = zlib.inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const pixels = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const f = raw[y * (stride + 1)]!;
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? pixels[y * stride + x - channels]! : 0;
      const b = y > 0 ? pixels[(y - 1) * stride + x]! : 0;
      const c = x >= channels && y > 0 ? pixels[(y - 1) * stride + x - channels]! : 0;
      let v = line[x]!;
      if (f === 1) v += a;
      else if (f === 2) v += b;
      else if (f === 3) v += (a + b) >> 1;
      else if (f === 4) {
        const p = a + b - c,
          pa = Math.abs(p - a),
          pb = Math.abs(p - b),
          pc = Math.abs(p - c);
        v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      pixels[y * stride + x] = v & 0xff;
    }
  }
  return { width, height, channels, pixels };
}

/** Pixels within `tol` of the colour (per channel), in rows y0.. of the image. */
export function countColour(img: Image, [r, g, b]: [number, number, number], tol = 12, y0 = 0): number {
  let n = 0;
  for (let y = y0; y < img.height; y++) {
    for (let x = 0; x < img.width; x++) {
      const i = (y * img.width + x) * img.channels;
      if (Math.abs(img.pixels[i]! - r) <= tol && Math.abs(img.pixels[i + 1]! - g) <= tol && Math.abs(img.pixels[i + 2]! - b) <= tol) n++;
    }
  }
  return n;
}
