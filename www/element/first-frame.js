// The first frame: a gallery scenario's board (or the empty run's) drawn
// before the core has arrived, from www/first-frames/<id>.json, which
// scripts/first-frames.mjs wrote with the same core. A Snapshot answers the
// questions a first draw asks of a run as the live Simulation would; the
// element then loads the run into the core and draws it again, which changes
// nothing on screen. A Snapshot cannot take a step: until the core is there,
// the controls' clicks wait (playground.js), and are then given to it.

/** The frame file's format this page reads (scripts/first-frames.mjs). */
const FORMAT = 1;
const ID = /^[a-z0-9][a-z0-9-]{0,79}$/;

const frames = new Map(); // id -> Promise<frame | null>

/** The frame of a gallery scenario (or `default`), fetched once; null when there is none. */
export function loadFrame(id) {
  if (!ID.test(id)) return Promise.resolve(null);
  if (!frames.has(id)) {
    const url = new URL(`../first-frames/${id}.json`, import.meta.url);
    frames.set(id, fetch(url).then(async (response) => {
      if (!response.ok) return null;
      const frame = await response.json();
      return frame && frame.highwater_frame === FORMAT ? frame : null;
    }).catch(() => null));
  }
  return frames.get(id);
}

/** Thrown for a question the frame has no answer to: the element waits for the core instead. */
export class NotInFrame extends Error {}

/** A run as the first frame knows it: read-only, at one position at a time. */
export class Snapshot {
  constructor(frame) {
    this.frame = frame;
    this.at = frame.length;
    this.snapshot = true;
  }

  /** What the core says of itself (versions, limits, the default config), as the frame recorded it. */
  get facts() {
    return this.frame.facts;
  }

  length() { return this.frame.length; }

  position() { return this.at; }

  seek(position) {
    if (!Number.isInteger(position) || position < 0 || position > this.frame.length) throw new NotInFrame(`no position ${position} in the first frame`);
    this.at = position;
  }

  traceText() { return this.frame.trace; }

  stepEnds() { return this.frame.stepEnds; }

  registrationRefusals() { return this.frame.refusals; }

  scenario() { return this.frame.scenario; }

  /** The end of the board's log, as the core's logEnd, for the partition its states show (partition 0, as `state`). */
  logEnd() {
    return Math.max(0, ...this.frame.positions[this.at].state.brokers.map((b) => b.log_end_offset));
  }

  /** The state with the log window the core would give: records from `from` (at most the log end), `count` of them. */
  state(from = 0, count = Infinity) {
    const full = this.frame.positions[this.at].state;
    return {
      ...full,
      brokers: full.brokers.map((b) => {
        const start = Math.min(from, b.log_end_offset);
        return { ...b, log_window_start: start, log: b.log.filter((r) => r.offset >= start).slice(0, count) };
      }),
    };
  }

  operator() { return this.frame.positions[this.at].operator; }

  /** Events from..to of the whole run (the trace's lines), as the core's eventsIn. */
  eventsIn(from, to) {
    const events = this.frame.events;
    const end = Math.min(to, events.length);
    return events.slice(Math.min(from, end), end);
  }

  /** A step's events (1-based), its last `last` of them. */
  stepEvents(step, last = Infinity) {
    const ends = this.frame.stepEnds;
    if (step < 1 || step > ends.length) return [];
    const events = this.frame.events.slice(step > 1 ? ends[step - 2] : 0, ends[step - 1]);
    return Number.isFinite(last) ? events.slice(Math.max(0, events.length - last)) : events;
  }

  free() {}
}
