// Exports: the scenario as a file `highwater run` replays, the trace as
// text, the current moment and the space-time diagram as standalone SVG, and
// SVG as PNG through a canvas. SVG is built as element trees (dom.js) and
// serialised by XMLSerializer: user text (record values, names) goes in
// through text nodes, so it is escaped, never parsed as markup. Everything
// drawn is a field of the core's state; no protocol logic here.

import { h } from './dom.js';
import { t as translate } from '../words/i18n.js';
import { renderDiagram, DIAGRAM_FONT } from './diagram.js';
import { visible, xmlSafe } from '../words/user-text.js';
import { formatTime } from '../words/describe.js';
import { recordsCarryEpochs } from './render.js';

const SVG_NS = 'http://www.w3.org/2000/svg';

/** Epoch colours, as the page's (Okabe-Ito, colour-blind safe). */
const EPOCH_COLOURS = ['#56b4e9', '#e69f00', '#009e73', '#cc79a7', '#f0e442', '#0072b2', '#d55e00', '#999999'];
/** A record without a leader epoch (before 0.11): grey, as the page draws it. */
const NO_EPOCH_COLOUR = '#8a94a3';

/** The scenario (config and every step of the timeline) as the JSON `highwater run` reads. */
export function scenarioFile(sim) {
  return `${JSON.stringify(sim.scenario(), null, 2)}\n`;
}

/** The trace up to the current position, as `highwater run` prints it. */
export function traceFile(sim) {
  return sim.traceText();
}

/** A file name from a scenario's name: ASCII letters and digits, dashes between. */
export function fileName(name, extension) {
  const slug = String(name || '').normalize('NFKD').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60);
  return `highwater${slug ? `-${slug}` : ''}.${extension}`;
}

/** Text as XML writes it in an element (`attribute`: in a double-quoted attribute value). */
function escapeXml(text, attribute = false) {
  const s = xmlSafe(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return attribute ? s.replace(/"/g, '&quot;') : s;
}

/** A vnode and what it holds as XML text: every text and attribute value escaped, never read as markup. */
function xml(v) {
  if ('text' in v) return escapeXml(v.text);
  let attrs = '';
  for (const [name, value] of Object.entries(v.attrs)) {
    if (name === 'key' || name === 'memo' || value === null || value === undefined || value === false) continue;
    const text = name === 'style' && typeof value === 'object'
      ? Object.entries(value).map(([k, x]) => `${k}:${x}`).join(';')
      : value === true ? '' : value;
    attrs += ` ${name}="${escapeXml(text, true)}"`;
  }
  return v.children.length ? `<${v.tag}${attrs}>${v.children.map(xml).join('')}</${v.tag}>` : `<${v.tag}${attrs}/>`;
}

/**
 * A vnode tree (an <svg> root) as standalone SVG text, with the fonts in an
 * embedded style. No character XML forbids (U+0000, U+001B…) gets in: a
 * record's value with one would make the file unreadable, and its PNG too.
 * Written as text (no DOM), so the build writes the same files in Node.
 */
export function svgText(root, { title, style = '' } = {}) {
  const extra = [h('style', null, `svg{font-family:${DIAGRAM_FONT}}text{white-space:pre}${style}`)];
  if (title) extra.unshift(h('title', null, visible(title)));
  return `<?xml version="1.0" encoding="UTF-8"?>\n${xml({ ...root, attrs: { ...root.attrs, xmlns: SVG_NS }, children: [...extra, ...root.children] })}\n`;
}

/** The space-time diagram (what `Simulation.spaceTime` returned) as standalone SVG text. */
export function diagramSvg(data, { width = 960, current = data.position, title } = {}) {
  return svgText(renderDiagram(data, { width, current }), { title });
}

/** A user's text cut to `max` characters (with an ellipsis), its unseen characters written out, for a record's box. */
function clip(text, max) {
  const chars = [...visible(text)];
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : chars.join('');
}

/** About how wide a line of text is drawn (wide characters count double). */
function textWidth(text, size) {
  let em = 0;
  for (const c of String(text)) em += c.codePointAt(0) >= 0x2e80 ? 1 : 0.58;
  return em * size;
}

const MOMENT_RECORDS = 24; // records drawn per log at most (the latest)

/**
 * The current moment as a picture for a slide: the partition line, then
 * per broker its role, LEO, HW and leader epoch, and its log's records
 * (offset above, value inside, leader epoch below, coloured by epoch),
 * with the HW and LEO drawn where they are. view: `sim.state()`.
 * `recordEpochs: false` (before 0.11, as the board's): records carry no
 * leader epoch, so none is written under them and they are all grey.
 * `partition` (a topic of several): which one `view` is of (`sim.state`'s
 * third argument); the brokers without a replica of it are left out.
 */
export function momentVnode(view, t = translate, { recordEpochs = true, partition = null } = {}) {
  const p = view.partition;
  const brokers = view.brokers.filter((b) => b.replica !== false);
  const cell = 60;
  const left = 190;
  const top = 74;
  const rowH = 94;
  const last = Math.max(0, ...brokers.map((b) => b.log_end_offset));
  const first = Math.max(0, last - MOMENT_RECORDS);
  const columns = Math.max(1, last - first + 1);
  const isr = `[${p.isr.join(', ')}]`;
  const named = partition === null ? '' : '_n';
  const head = p.leader == null
    ? t(`export.moment.offline${named}`, { partition, epoch: p.leader_epoch, isr })
    : t(`export.moment.partition${named}`, { partition, leader: p.leader, epoch: p.leader_epoch, isr, hw: p.high_watermark ?? '–' });
  const width = Math.ceil(Math.max(left + columns * cell + 40, 40 + textWidth(head, 13.5)));
  const height = top + brokers.length * rowH + 16;
  const x = (offset) => left + (offset - first) * cell;
  const rows = brokers.map((b, i) => {
    const y = top + i * rowH;
    const down = !b.alive;
    const role = t(`role.${b.role}`);
    const records = b.log.filter((r) => r.offset >= first);
    // Records before the first drawn: left out here, or of the log window asked for.
    const earlier = b.log_window_start + b.log.filter((r) => r.offset < first).length;
    return h('g', { class: 'mo-broker', 'data-broker': b.id, opacity: down ? 0.55 : 1 },
      h('text', { class: 'ink', x: 16, y: y + 22, 'font-size': 16, 'font-weight': 700, fill: '#1d2430' }, t('export.moment.broker', { id: b.id })),
      h('text', { class: b.role === 'leader' ? 'lead' : down ? 'down' : 'muted', x: 16, y: y + 42, 'font-size': 13, fill: b.role === 'leader' ? '#a04f00' : down ? '#c0392b' : '#4a5563', 'font-weight': b.role === 'leader' ? 700 : 400 },
        `${role}${b.in_isr ? ` · ${t('export.moment.in_isr')}` : ''}`),
      h('text', { class: 'muted', x: 16, y: y + 60, 'font-size': 12, fill: '#4a5563' }, t('export.moment.stats', { leo: b.log_end_offset, hw: b.high_watermark, epoch: b.leader_epoch })),
      records.length === 0 && b.log_end_offset === 0
        ? h('text', { class: 'faint', x: left, y: y + 40, 'font-size': 12, fill: '#6b7480', 'font-style': 'italic' }, t('export.moment.empty_log'))
        : null,
      earlier > 0 ? h('text', { class: 'faint', x: left - 8, y: y + 72, 'font-size': 10, fill: '#6b7480', 'text-anchor': 'end' }, t('export.moment.earlier', { count: earlier })) : null,
      records.map((r) => {
        const committed = r.offset < b.high_watermark;
        const colour = recordEpochs ? EPOCH_COLOURS[r.epoch % EPOCH_COLOURS.length] : NO_EPOCH_COLOUR;
        return h('g', { class: 'mo-record', 'data-offset': r.offset },
          h('text', { class: 'faint', x: x(r.offset) + cell / 2 - 2, y: y + 14, 'font-size': 10, fill: '#6b7480', 'text-anchor': 'middle' }, String(r.offset)),
          h('rect', { x: x(r.offset), y: y + 20, width: cell - 4, height: 36, rx: 4, fill: colour, 'fill-opacity': committed ? 0.9 : 0.3, stroke: colour, 'stroke-width': 1.5, 'stroke-dasharray': committed ? null : '4 3' }),
          h('text', { class: committed ? 'mo-value' : 'mo-value pale', x: x(r.offset) + cell / 2 - 2, y: y + 36, 'font-size': 12, 'font-weight': 600, fill: '#1d2430', 'text-anchor': 'middle', 'font-family': 'ui-monospace, Menlo, Consolas, "Noto Sans Mono CJK SC", monospace' }, clip(r.value, 7)),
          recordEpochs ? h('text', { class: committed ? 'mo-epoch' : 'mo-epoch pale', x: x(r.offset) + cell / 2 - 2, y: y + 51, 'font-size': 9.5, fill: '#1d2430', 'text-anchor': 'middle' }, t('export.moment.epoch', { epoch: r.epoch })) : null,
          h('title', null, `${r.offset}: ${visible(r.value)}`),
        );
      }),
      // HW and LEO: lines at the boundary before that offset.
      [['hw', b.high_watermark, '#0b6bb0', 0], ['leo', b.log_end_offset, '#1d2430', 13]].map(([key, offset, colour, dy]) => offset >= first
        ? h('g', { class: `mo-${key}` },
          h('line', { x1: x(offset) - 2, y1: y + 16, x2: x(offset) - 2, y2: y + 60 + dy, stroke: colour, 'stroke-width': 2.5 }),
          h('text', { x: x(offset) + 1, y: y + 69 + dy, 'font-size': 10.5, 'font-weight': 700, fill: colour }, t(`export.moment.${key}`)))
        : null),
    );
  });
  return h('svg', { xmlns: SVG_NS, width, height, viewBox: `0 0 ${width} ${height}`, 'font-family': DIAGRAM_FONT },
    h('rect', { class: 'bg', x: 0, y: 0, width, height, fill: '#ffffff' }),
    h('text', { class: 'ink', x: 16, y: 26, 'font-size': 18, 'font-weight': 700, fill: '#1d2430' }, t('export.moment.title', { step: view.step, time: formatTime(view.time_ms), protocol: view.protocol })),
    h('text', { class: 'ink', x: 16, y: 50, 'font-size': 13.5, fill: '#1d2430' }, head),
    rows,
  );
}

/**
 * The moment's colours on a dark page, as the board's dark theme has them
 * (element/style.css): a poster follows the reader's colour scheme. A
 * record's words stay dark on its full colour, and turn light on a record
 * not yet committed, drawn pale over the background.
 */
const DARK_MOMENT = '@media (prefers-color-scheme:dark){.bg{fill:#161b22}.ink,.pale{fill:#e6eaf0}.muted{fill:#9aa5b4}.faint{fill:#8d97a5}'
  + '.lead{fill:#e3a440}.down{fill:#ff6b61}.mo-hw line{stroke:#6aa7ff}.mo-hw text{fill:#6aa7ff}.mo-leo line{stroke:#e6eaf0}.mo-leo text{fill:#e6eaf0}}';

/**
 * The current moment as standalone SVG text. `scheme: 'auto'`: dark where
 * the reader prefers dark (a poster); otherwise light, as a slide wants.
 */
export function momentSvg(view, t = translate, { scheme = 'light', ...options } = {}) {
  return svgText(momentVnode(view, t, options), { style: scheme === 'auto' ? DARK_MOMENT : '' });
}

/**
 * A poster (scripts/posters.mjs, docs/embedding.md): `scenario` at `at` as
 * the element opens it (a topic of several partitions: partition 0), drawn as
 * the moment, dark where the reader prefers dark. `core`: { Simulation,
 * versions } (the catalogue).
 */
export function posterSvg(core, scenario, at, t = translate) {
  const sim = core.Simulation.fromScenario(scenario);
  try {
    sim.seek(Math.min(at, sim.length()));
    const several = ((scenario.config && scenario.config.partitions) || 1) > 1;
    const state = sim.state(undefined, undefined, several ? 0 : undefined);
    return momentSvg(state, t, { scheme: 'auto', recordEpochs: recordsCarryEpochs(core.versions, state.protocol), partition: several ? 0 : null });
  } finally {
    sim.free();
  }
}

/** SVG text as a PNG Blob, `scale` times its size, drawn through a canvas. */
export async function svgToPng(svg, scale = 2) {
  // The size from the root's own attributes (svgText writes them), read
  // without parsing the document: a parsed document's <style> would be
  // reported to a page whose CSP says `style-src 'self'`.
  const open = /<svg\b[^>]*>/.exec(svg);
  const attribute = (name) => (open ? Number.parseFloat((new RegExp(`\\s${name}="([^"]*)"`).exec(open[0]) || [])[1]) : Number.NaN);
  const width = Math.ceil(attribute('width') * scale);
  const height = Math.ceil(attribute('height') * scale);
  if (!(width > 0 && height > 0)) throw new Error('svgToPng: the SVG has no width and height');
  const url = URL.createObjectURL(new Blob([svg], { type: 'image/svg+xml' }));
  // A page whose Content-Security-Policy has no `img-src blob:` refuses the
  // image: said as that, not as an image that "cannot be decoded".
  let refused = false;
  const onViolation = (e) => { if (e.blockedURI === 'blob' || String(e.blockedURI).startsWith('blob:')) refused = true; };
  document.addEventListener('securitypolicyviolation', onViolation);
  try {
    const image = new Image();
    image.src = url;
    try {
      await image.decode();
    } catch (err) {
      // The violation event is queued as a task: let it arrive before deciding.
      await new Promise((r) => setTimeout(r, 0));
      if (refused) throw new Error(translate('export.png_refused'));
      throw err;
    }
    const canvas = document.createElement('canvas');
    canvas.width = width;
    canvas.height = height;
    const context = canvas.getContext('2d');
    context.fillStyle = '#ffffff';
    context.fillRect(0, 0, width, height);
    context.drawImage(image, 0, 0, width, height);
    return await new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('svgToPng: the canvas made no PNG'))), 'image/png'));
  } finally {
    document.removeEventListener('securitypolicyviolation', onViolation);
    URL.revokeObjectURL(url);
  }
}

/** Saves a Blob (or text) as a file through a temporary link. */
export function download(name, blob) {
  const data = blob instanceof Blob ? blob : new Blob([blob], { type: 'text/plain;charset=utf-8' });
  const url = URL.createObjectURL(data);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
