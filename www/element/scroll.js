// The page keeps what a moment is about on screen: after an action it
// scrolls up by what is missing below, never past what must stay above.

/**
 * Scrolls the page up so that `bottom` (a viewport y: the last thing that
 * must be seen) is in view, by no more than takes `top` (the first thing
 * that must stay seen) to the viewport's top. Nothing when it is in view.
 */
export function bringIntoView(bottom, top) {
  const by = Math.min(bottom - innerHeight + 4, top - 4);
  if (bottom > innerHeight && by > 0) scrollBy({ top: by, behavior: 'instant' });
}
