// Types of highwater-playground.js: importing it defines the custom element
// <highwater-playground> (`import 'highwater-playground';`).

export type HighwaterPlaygroundLanguage = 'en' | 'zh-Hans' | 'zh-Hant';
export type HighwaterPlaygroundControls = 'full' | 'compact' | 'none';

/** The element's attributes, all optional (for templates and JSX typings). */
export interface HighwaterPlaygroundAttributes {
  /** A gallery scenario id such as "kip101-loss-after-restart", or a scenario's link text "v1.…". */
  scenario?: string;
  /** The step of the timeline to show (0 is the start). */
  step?: number | `${number}`;
  /** A topic of several partitions: the partition the board shows (0 by default); the cluster map chooses it too. */
  partition?: number | `${number}`;
  /** A tour id, such as "leo-and-hw": the element plays that narrated lesson. */
  tour?: string;
  /**
   * The URL of a tour file (docs/tours.md, "Your own tour"; same origin or
   * CORS): the element checks it with the model and plays it. A
   * `<script type="application/json">` child holding the file does the same
   * without a request. The element then has `data-tour-errors`: the number of
   * facts (and steps or stops) the model does not bear out, 0 when all hold.
   */
  'tour-src'?: string;
  /** A change (docs/fork.md), such as "protocol=0.11": the run and its fork side by side. */
  fork?: string;
  lang?: HighwaterPlaygroundLanguage;
  /** A CSS length, such as "480px": the most height the element takes (a taller board scrolls inside). */
  height?: string;
  controls?: HighwaterPlaygroundControls;
  /** Boolean attribute: play the timeline once the element is in view. */
  autoplay?: boolean | '';
  /** light, dark, or auto (the default): the host page's toggle, else its background, else the OS. */
  theme?: 'light' | 'dark' | 'auto';
}

/** `detail` of the `highwater-position` event. */
export interface HighwaterPositionDetail {
  /** The step in view (0 is the start). */
  position: number;
  /** Steps in the timeline. */
  length: number;
  /** The scenario's name (its `name` field; empty for a run of one's own). */
  scenario: string;
  /** The run stopped at a work budget. */
  stopped: boolean;
  /** Guarantees broken so far (the violation banner's). */
  violations: number;
}

/** Sent by the element when its step changes; it bubbles and crosses shadow roots (composed). */
export type HighwaterPositionEvent = CustomEvent<HighwaterPositionDetail>;

/** `detail` of the `highwater-partition` event. */
export interface HighwaterPartitionDetail {
  /** The partition now on the board. */
  partition: number;
}

/** Sent when the board shows another partition (chosen on the cluster map, or by the attribute); it bubbles and is composed. */
export type HighwaterPartitionEvent = CustomEvent<HighwaterPartitionDetail>;

/** `detail` of the `highwater-answer` event: a learner's choice at a tour's prediction stop. */
export interface HighwaterAnswerDetail {
  /** The tour's id. */
  tour: string;
  /** The stop's key. */
  stop: string;
  /** The path the stop asks for, such as "brokers.2.high_watermark". */
  path: string;
  /** The value chosen, and the model's. */
  chosen: unknown;
  answer: unknown;
  correct: boolean;
}

/** Sent when a learner chooses at a prediction stop; it bubbles and is composed. */
export type HighwaterAnswerEvent = CustomEvent<HighwaterAnswerDetail>;

/**
 * <highwater-playground>: the playground in an open shadow root. Several on
 * one page share one WebAssembly instance; each loads when scrolled into view,
 * and carries a `data-ready` attribute once it shows its scenario.
 */
export interface HighwaterPlaygroundElement extends HTMLElement {
  /** The step shown, and the run's length (null until it has loaded). */
  readonly position: number | null;
  readonly length: number | null;
  /** Locale keys the page's playgrounds asked for that no locale table has (for tests of translations). */
  missingKeys(): string[];
  addEventListener<K extends keyof HighwaterPlaygroundEventMap>(type: K, listener: (this: HighwaterPlaygroundElement, ev: HighwaterPlaygroundEventMap[K]) => unknown, options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
  removeEventListener<K extends keyof HighwaterPlaygroundEventMap>(type: K, listener: (this: HighwaterPlaygroundElement, ev: HighwaterPlaygroundEventMap[K]) => unknown, options?: boolean | EventListenerOptions): void;
  removeEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | EventListenerOptions): void;
}

export interface HighwaterPlaygroundEventMap extends HTMLElementEventMap {
  'highwater-position': HighwaterPositionEvent;
  'highwater-partition': HighwaterPartitionEvent;
  'highwater-answer': HighwaterAnswerEvent;
}

declare global {
  interface HTMLElementTagNameMap {
    'highwater-playground': HighwaterPlaygroundElement;
  }
  // The event bubbles and is composed: listeners on document or window see it too.
  interface GlobalEventHandlersEventMap {
    'highwater-position': HighwaterPositionEvent;
    'highwater-partition': HighwaterPartitionEvent;
    'highwater-answer': HighwaterAnswerEvent;
  }
}
