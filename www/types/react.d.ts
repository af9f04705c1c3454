// <highwater-playground> in React's JSX (React 18.3 and 19, `jsx: "react-jsx"`):
// its attributes, typed, beside React's own. Opt in once, in any file the
// compiler sees:
//
//   import type {} from 'highwater-playground/types/react';
//
// React 19 passes a value to a custom element as an attribute (or as a
// property the element has), so `step={8}` and `autoplay` work as written.
import type { DetailedHTMLProps, HTMLAttributes } from 'react';
import type { HighwaterPlaygroundAttributes, HighwaterPlaygroundElement } from '../highwater-playground.js';

/** The element's props in JSX: React's HTML attributes and the element's own. */
export type HighwaterPlaygroundReactProps = DetailedHTMLProps<HTMLAttributes<HighwaterPlaygroundElement>, HighwaterPlaygroundElement> &
  HighwaterPlaygroundAttributes;

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'highwater-playground': HighwaterPlaygroundReactProps;
    }
  }
}
