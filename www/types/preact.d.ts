// <highwater-playground> in Preact's JSX (Preact 10): its attributes, typed,
// beside Preact's own. Opt in once, in any file the compiler sees:
//
//   import type {} from 'highwater-playground/types/preact';
import type { JSX } from 'preact';
import type { HighwaterPlaygroundAttributes, HighwaterPlaygroundElement } from '../highwater-playground.js';

/** The element's props in JSX: Preact's HTML attributes and the element's own. */
export type HighwaterPlaygroundPreactProps = Omit<JSX.HTMLAttributes<HighwaterPlaygroundElement>, keyof HighwaterPlaygroundAttributes> &
  HighwaterPlaygroundAttributes;

declare module 'preact' {
  namespace JSX {
    interface IntrinsicElements {
      'highwater-playground': HighwaterPlaygroundPreactProps;
    }
  }
}
