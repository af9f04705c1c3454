// Notices stay small and go: a long message is a few lines (whole in its
// title and behind "More"), its ✕ is in view and dismisses it, and one under
// the pointer still expires.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { setup, openPage, missingKeys } from './harness.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => env && env.close());

const LONG = `Could not start: ${'a very long reason that goes on '.repeat(80)}end.`;

test('a long notice is clamped to a few lines, expands on More, and its ✕ is in view and dismisses it', async () => {
  for (const viewport of [{ width: 1280, height: 900 }, { width: 390, height: 700 }]) {
    const page = await openPage(env, { viewport });
    await page.evaluate((text) => document.querySelector('highwater-playground').playground.notify('error', text, { timeoutMs: 600000 }), LONG);
    const note = page.locator('#notices .notice').last();
    const box = await note.boundingBox();
    const lineHeight = await note.locator('p').evaluate((p) => parseFloat(getComputedStyle(p).lineHeight));
    assert.ok(box.height <= lineHeight * 5 + 30, `${viewport.width}px: ${box.height}px tall`);
    assert.equal(await note.locator('p').getAttribute('title'), LONG, 'the whole text in its title');
    const close = note.locator('button.close');
    const c = await close.boundingBox();
    assert.ok(c.x >= 0 && c.y >= 0 && c.x + c.width <= viewport.width && c.y + c.height <= viewport.height, `${viewport.width}px: the ✕ is in view`);
    await note.locator('.notice-more').click();
    assert.ok((await note.boundingBox()).height > box.height, 'More shows more');
    assert.ok((await close.boundingBox()).y + c.height <= viewport.height, 'the ✕ stays in view when expanded');
    await close.click();
    assert.equal(await page.locator('#notices .notice').count(), 0, 'dismissed');
    assert.deepEqual(await missingKeys(page), []);
    assert.deepEqual(page.errors, []);
    await page.context().close();
  }
});

test('a notice under the pointer stays past its time but still expires', async () => {
  const page = await openPage(env);
  await page.evaluate(() => document.querySelector('highwater-playground').playground.notify('info', 'short', { timeoutMs: 400 }));
  const note = page.locator('#notices .notice', { hasText: 'short' });
  await note.hover();
  // Still there after its own lifetime while hovered…
  await page.evaluate(() => new Promise((r) => setTimeout(r, 700)));
  assert.equal(await note.count(), 1, 'held under the pointer');
  // …and gone in the end, the pointer still on it.
  await note.waitFor({ state: 'detached', timeout: 5000 });
  assert.deepEqual(page.errors, []);
});

// Issue 20's reproducer: a 237-character link whose scenario has a 100,000-character
// unknown key. It once gave a notice 83,000 px tall over the top bar, its ✕ off-screen.
test('the link with a 100,000-character unknown key gives a short notice, with its ✕ in view, and a board', async () => {
  const link = readFileSync(new URL('../fuzz-seeds/hostile-unknown-field-100k.link', import.meta.url), 'utf8').trim();
  for (const viewport of [{ width: 1280, height: 900 }, { width: 390, height: 700 }]) {
    const page = await openPage(env, { viewport, hash: `#s=${encodeURIComponent(link)}` });
    const note = page.locator('#notices .notice').first();
    await note.waitFor();
    const text = await note.locator('p').evaluate((p) => p.getAttribute('title') || p.textContent);
    // Bounded whatever the key's length: the excerpt, its length, and the fields the reader expects.
    assert.ok(text.length < 1000, `${text.length} characters: ${text.slice(0, 200)}`);
    assert.match(text, /"a{60}…" \(100,011 characters\)/, 'the key is quoted as an excerpt with its length');
    const box = await note.boundingBox();
    const lineHeight = await note.locator('p').evaluate((p) => parseFloat(getComputedStyle(p).lineHeight));
    assert.ok(box.height <= lineHeight * 5 + 30, `${viewport.width}px: ${box.height}px tall`);
    const c = await note.locator('button.close').boundingBox();
    assert.ok(c.x >= 0 && c.y >= 0 && c.x + c.width <= viewport.width && c.y + c.height <= viewport.height, `${viewport.width}px: the ✕ is in view`);
    assert.ok(await page.locator('.broker-row').count() > 0, 'a board is drawn');
    assert.deepEqual(page.errors, []);
    await page.context().close();
  }
});
