// The default theme, plus the playground element, defined in the browser only:
// it needs the DOM, and the server-side render leaves <highwater-playground>
// as an empty tag that the element fills once it is scrolled into view.
import DefaultTheme from 'vitepress/theme';
import './custom.css';

export default {
  extends: DefaultTheme,
  enhanceApp() {
    if (import.meta.env.SSR) return;
    // Loaded by URL, not bundled again: the package's bundle finds its CSS,
    // locales, tours, gallery and wasm relative to its own URL.
    const src = `${import.meta.env.BASE_URL}highwater-playground/bundle/highwater-playground.js`;
    import(/* @vite-ignore */ src).catch((err) => {
      console.error(`highwater-playground: could not load ${src}: ${err.message}`);
    });
  },
};
