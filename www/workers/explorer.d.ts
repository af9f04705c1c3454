// Types of workers/explorer.js (`import { explore } from 'highwater-playground/explorer'`):
// the counterexample explorer in Web Workers. The shapes are those of docs/js-api.md.
import type { Config, Step } from '../core.js';

export interface ExploreOptions {
  config: Config;
  acks?: '1' | 'all';
  power_loss?: boolean;
  network_faults?: boolean;
  shutdowns?: boolean;
  consume?: boolean;
  /** A rack's faults: every broker of a rack crashing at once (losing power too with `power_loss`), a rack cut off, and heal. The brokers need racks (`config.racks`). */
  rack_faults?: boolean;
  prefix?: Step[];
  strategy?: 'bfs' | 'random';
  depth?: number;
  max_states?: number;
  max_produces?: number;
  seed?: number;
  goal?: 'violation' | 'lost_write';
  /** Web Workers sharing the search, 1 to 16 (default `defaultWorkers()`); random walks take one. The answer is the same for any number. */
  workers?: number;
}

export interface ExploreOutcome {
  found: boolean;
  violation: object | null;
  scenario: { steps: Step[]; [field: string]: unknown } | null;
  states: number;
  generated: number;
  depth: number;
  complete: boolean;
  stopped: 'max_states' | 'interrupted' | null;
  link: string | null;
}

/** The machine's cores (navigator.hardwareConcurrency), at most 4, at least 1. */
export function defaultWorkers(): number;
/** Runs the search in Web Workers; `signal` stops every worker at once (the promise rejects with its reason). */
export function explore(options: ExploreOptions, init?: { progress?: (states: number, depth: number) => void; signal?: AbortSignal }): Promise<ExploreOutcome>;
