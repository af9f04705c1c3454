// Walks a tour as a learner does (Next, and at a question its first choice)
// and reads, at every moment, whether the brokers the moment is about are
// fully in the viewport together with the tour's caption and the control it
// asks for. The brokers a stop is about: those its facts name (`leader`,
// `brokers.N…`), its question names, its "do" step acts on, and its English
// caption names ("broker 3"). Used by one-screen.test.mjs and
// scripts/one-screen.mjs.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './harness.mjs';

export const SIZES = [
  { name: 'phone', width: 390, height: 844 },
  { name: 'laptop', width: 1280, height: 720 },
  { name: 'desktop', width: 1440, height: 900 },
  { name: 'embed', width: 800, height: 500, embed: true },
];

export function tourIds() {
  return JSON.parse(fs.readFileSync(path.join(ROOT, 'www', 'tours', 'index.json'), 'utf8')).tours;
}

/** Every stop of a built-in tour in order, with the brokers it is about. */
export function tourStops(id) {
  const tour = JSON.parse(fs.readFileSync(path.join(ROOT, 'www', 'tours', `${id}.json`), 'utf8'));
  const words = JSON.parse(fs.readFileSync(path.join(ROOT, 'www', 'locales', 'en', 'tours.json'), 'utf8'))[id];
  const stops = [];
  for (const part of tour.parts) {
    for (const stop of part.stops) {
      const named = new Set();
      const facts = stop.facts || {};
      if (Number.isInteger(facts.leader)) named.add(facts.leader);
      for (const b of Object.keys(facts.brokers || {})) named.add(Number(b));
      const q = typeof stop.predict === 'string' ? stop.predict.match(/^brokers\.(\d+)\./) : null;
      if (q) named.add(Number(q[1]));
      const step = stop.at > 0 ? part.scenario.steps[stop.at - 1] : null;
      if (stop.do && step && typeof step === 'object') {
        const arg = Object.values(step)[0];
        if (Number.isInteger(arg)) named.add(arg);
      }
      const caption = words?.stops?.[stop.key];
      const text = typeof caption === 'string' ? caption : JSON.stringify(caption || '');
      for (const m of text.matchAll(/\bbroker (\d+)/gi)) named.add(Number(m[1]));
      stops.push({ key: stop.key, at: stop.at, do: Boolean(stop.do), predict: Boolean(stop.predict), named: [...named].filter((n) => n >= 1 && n <= 7).sort() });
    }
  }
  return stops;
}

/** What is in view now: the caption, the tour's primary control, and each named broker's row (or, without a replica of the partition shown, its name on the controller's line). */
export async function inView(page, named) {
  return page.evaluate((brokers) => {
    const root = document.querySelector('highwater-playground').shadowRoot;
    const H = innerHeight;
    const fully = (el) => {
      if (!el) return null;
      const r = el.getBoundingClientRect();
      return r.height > 0 && r.top >= -1 && r.bottom <= H + 1 && r.left >= -1 && r.right <= innerWidth + 1;
    };
    // The caption, or while a question is open the question in its place.
    const caption = root.querySelector('#tour [data-testid="tour-caption"]') || root.querySelector('#tour .tour-question');
    const control = root.querySelector('#tour button.tour-choice, #tour .tour-buttons .primary');
    const out = { caption: fully(caption), control: control ? fully(control) : true, brokers: {} };
    // A broker without a replica of the partition shown (a topic on a cluster) is on the controller's line.
    for (const b of brokers) out.brokers[b] = fully(root.querySelector(`.broker-row[data-broker="${b}"]`) || root.querySelector(`[data-testid="no-replica"] [data-broker="${b}"]`));

    return out;
  }, named);
}

/**
 * Walks tour `id` at the page's size and language: resolves one entry per
 * moment (a stop as it opens, and again after its step or answer), each
 * { stop, key, moment, named, caption, control, brokers: { id: true|false } }.
 */
export async function walkTour(page, url, id, lang, { embed = false, onMoment = null } = {}) {
  const stops = tourStops(id);
  await page.goto(`${url}?tour=${id}&step=1&lang=${lang}${embed ? '&embed' : ''}`);
  await page.waitForSelector('body[data-ready="true"]');
  const host = page.locator('highwater-playground');
  const panel = host.locator('#tour');
  await panel.locator('[data-testid="tour-caption"]').waitFor();
  const seen = [];
  const record = async (entry) => {
    seen.push(entry);
    if (onMoment) await onMoment(entry);
  };
  const settle = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  for (let i = 0; i < stops.length; i++) {
    const stop = stops[i];
    await page.waitForFunction((n) => new URL(location.href).searchParams.get('step') === String(n), i + 1);
    await settle();
    // A question: its first choice (the answer is then shown).
    if (stop.predict) await panel.locator('button.tour-choice').first().waitFor({ timeout: 20_000 }).catch(() => {});
    await record({ stop: i + 1, key: stop.key, moment: 'open', named: stop.named, ...(await inView(page, stop.named)) });
    if (i === stops.length - 1 && !stop.do && !stop.predict) break;
    const choice = panel.locator('button.tour-choice').first();
    if (await choice.count()) {
      await choice.click();
      await settle();
      await record({ stop: i + 1, key: stop.key, moment: 'answered', named: stop.named, ...(await inView(page, stop.named)) });
    }
    const next = panel.locator('button[data-tour="next"]');
    if (i === stops.length - 1) {
      if (stop.do && await panel.locator('button[data-tour="do"]').count()) {
        await panel.locator('button[data-tour="do"]').click();
        await settle();
        await record({ stop: i + 1, key: stop.key, moment: 'done', named: stop.named, ...(await inView(page, stop.named)) });
      }
      break;
    }
    // A "do" stop: the learner takes the step with the tour's control.
    if (stop.do && await panel.locator('button[data-tour="do"]').count()) {
      await panel.locator('button[data-tour="do"]').click();
      await settle();
      await record({ stop: i + 1, key: stop.key, moment: 'done', named: stop.named, ...(await inView(page, stop.named)) });
    }
    await next.click();
    // Next at a stop still waiting takes its step first: once more to move on.
    if (new URL(page.url()).searchParams.get('step') === String(i + 1)) {
      await settle();
      if (new URL(page.url()).searchParams.get('step') === String(i + 1)) await next.click();
    }
  }
  return seen;
}

/** The moments where something the moment is about is out of view. */
export function outOfView(seen) {
  return seen.filter((s) => !s.caption || !s.control || Object.values(s.brokers).some((v) => !v));
}
