// Every form of every scenario step reads as words in each language: no key,
// no placeholder left over, and two different steps never read the same.
// Runs the page's own words module in Node, over the locale files.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setLanguage, t } from '../../www/words/i18n.js';
import { describeStep } from '../../www/words/describe.js';
import { taskControl } from '../../www/element/tour.js';

globalThis.fetch = async (url) => {
  const text = readFileSync(fileURLToPath(url), 'utf8');
  return { ok: true, json: async () => JSON.parse(text) };
};

const STEPS = [
  { produce: { value: 'm1', acks: 'all' } },
  { produce: { value: 'm1', acks: '1', to: 2 } },
  { produce: { value: 'm1', acks: 'all', partition: 3 } },
  { produce: { value: 'm1', acks: 'all', key: 'user-17' } },
  { fetch: 2 },
  { fetch: { broker: 2, from: 3 } },
  { advance_ms: 1500 },
  { crash: { broker: 1, lose_unflushed: 0 } },
  { crash: { broker: 1, lose_unflushed: 2 } },
  { crash: { rack: 'eu-west-1a', lose_unflushed: 0 } },
  { crash: { rack: 'eu-west-1a', lose_unflushed: 1 } },
  { crash: { rack: 'eu-west-1a', lose_unflushed: 3 } },
  { restart: 1 },
  { elect: null },
  { elect: 2 },
  { elect: { partition: 4 } },
  { elect: { partition: 4, broker: 2 } },
  { elect_preferred: null },
  { elect_preferred: 5 },
  { delay: { broker: 2, ms: 300 } },
  { cut: [1, 2] },
  { partition: [1, 2] },
  { isolate: 3 },
  { isolate: { rack: 'b' } },
  { cut_controller: 2 },
  { controlled_shutdown: 2 },
  { begin_controlled_shutdown: 2 },
  { heal: 'all' },
  { heal: 2 },
  { heal: [1, 2] },
  { consume: null },
  { consume: { partition: 1 } },
  { pause: 2 },
  { resume: 2 },
  { crash: { controller: 2 } },
  { restart: { controller: 2 } },
  { isolate: { controller: 2 } },
  { heal: { controller: 2 } },
  { resign: null },
];

for (const code of ['en', 'zh-Hans', 'zh-Hant']) {
  test(`every step form reads as words (${code})`, async () => {
    await setLanguage(code, new URL('../../www/words/i18n.js', import.meta.url));
    const seen = new Map();
    for (const step of STEPS) {
      const words = describeStep(step);
      const [kind] = Object.keys(step);
      assert.ok(words && words !== kind && !/\bstep\.[a-z_]+/.test(words), `${JSON.stringify(step)} -> ${words}`);
      assert.ok(!/\{[a-z_]+\}/.test(words), `placeholder left: ${words}`);
      assert.ok(!/undefined|\[object Object\]/.test(words), `${JSON.stringify(step)} -> ${words}`);
      assert.ok(!seen.has(words), `${JSON.stringify(step)} reads as ${JSON.stringify(seen.get(words))}: ${words}`);
      seen.set(words, step);
    }
    // What the step names is in its words.
    assert.match(describeStep({ crash: { rack: 'eu-west-1a', lose_unflushed: 0 } }), /eu-west-1a/);
    assert.match(describeStep({ produce: { value: 'm1', acks: 'all', key: 'user-17' } }), /user-17/);
    assert.match(describeStep({ fetch: { broker: 2, from: 3 } }), /3/);
    assert.match(describeStep({ restart: { controller: 3 } }), /controller 3/);
    // A "do" stop's control for each step: the board's own label, never a placeholder's leftover.
    for (const step of STEPS) {
      const { text, label } = taskControl(step, {});
      assert.ok(text && label && !/undefined|\{[a-z_]+\}/.test(`${text} ${label}`), `${JSON.stringify(step)} -> ${text} / ${label}`);
    }
    for (const [kind, step] of [['crash', { crash: { controller: 2 } }], ['restart', { restart: { controller: 2 } }], ['isolate', { isolate: { controller: 2 } }]]) {
      assert.equal(taskControl(step).label, t(`quorum.action.${kind}`), kind);
    }
  });
}
