// Which tour moments leave a broker they speak of (or the caption, or the
// control asked for) out of the viewport, per tour, size and language.
// Usage: node scripts/one-screen.mjs [--lang en,zh-Hans,zh-Hant] [--size phone,laptop,desktop,embed] [--tour ID,...] [--shots DIR]
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { setup } from '../tests/browser/harness.mjs';
import { SIZES, tourIds, walkTour, outOfView } from '../tests/browser/one-screen.mjs';

const { values } = parseArgs({ options: { lang: { type: 'string', default: 'en' }, size: { type: 'string', default: SIZES.map((s) => s.name).join(',') }, tour: { type: 'string', default: '' } } });
const env = await setup();
const langs = values.lang.split(',');
const sizes = SIZES.filter((s) => values.size.split(',').includes(s.name));
const tours = values.tour ? values.tour.split(',') : tourIds();
let total = 0;
let bad = 0;
try {
  for (const size of sizes) {
    for (const lang of langs) {
      const context = await env.browser.newContext({ viewport: { width: size.width, height: size.height }, reducedMotion: 'reduce' });
      const page = await context.newPage();
      const url = size.embed ? `${env.url}` : env.url;
      for (const id of tours) {
        const seen = await walkTour(page, url, id, lang, { embed: size.embed });
        const out = outOfView(seen);
        total += seen.length;
        bad += out.length;
        const list = out.map((s) => `${s.stop}${s.moment === 'open' ? '' : `(${s.moment})`}:${[!s.caption && 'caption', !s.control && 'control', ...Object.entries(s.brokers).filter(([, v]) => !v).map(([b]) => `b${b}`)].filter(Boolean).join('+')}`);
        console.log(`${size.name.padEnd(8)} ${lang.padEnd(8)} ${id.padEnd(20)} ${out.length}/${seen.length} ${list.join(' ')}`);
      }
      await context.close();
    }
  }
} finally {
  await env.close();
}
console.log(`out of view: ${bad} of ${total} moments`);
