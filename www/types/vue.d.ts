// <highwater-playground> in Vue's templates (Vue 3, checked by vue-tsc): its
// attributes, typed, as a global component's props. Opt in once, in any file
// the compiler sees:
//
//   import type {} from 'highwater-playground/types/vue';
//
// Vue must also leave the tag to the browser: `isCustomElement: (tag) =>
// tag.startsWith('highwater-')` in the template compiler's options
// (docs/embedding.md has the VitePress config).
import type { DefineComponent } from 'vue';
import type { HighwaterPlaygroundAttributes } from '../highwater-playground.js';

/** The element's props in a template: its attributes, `tour-src` also as `tourSrc` (a template's kebab-case name). */
export type HighwaterPlaygroundVueProps = HighwaterPlaygroundAttributes & {
  tourSrc?: HighwaterPlaygroundAttributes['tour-src'];
};

declare module 'vue' {
  interface GlobalComponents {
    'highwater-playground': DefineComponent<HighwaterPlaygroundVueProps>;
  }
}
